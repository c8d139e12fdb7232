"""The live layer's patches of other libraries' code (bff/live/patches/): each written for the
version requirements.lock pins, and a test that fails, naming the patch, when an installed
version differs (an upgrade is a deliberate act); BFF_LIVE_TUNING applies them or runs the
stock libraries, and a served app works either way."""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import engineio.async_drivers.asgi
import engineio.async_socket
import pytest
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.protocol import ws_stream

from bff.live import patches
from bff.live.managers import LocalManager, RoomsKeptLocalManager
from bff.live.patches.wire import Wire
from bff.services import app_services
from bff.users.models import Role
from config.checks import LIVE_PATCHES
from config.settings import Settings, SettingsError, load_settings
from tests.conftest import make_settings
from tests.factories import make_staff
from tests.live.conftest import marker, run_live
from tools.devserver import REPO, local_env

LOCK = Path(__file__).resolve().parents[2] / "requirements.lock"


def test_every_patch_is_written_for_the_version_installed() -> None:
    """The guard: after an upgrade (or a downgrade) of a patched library this fails, naming
    each patch to read against the new code and measure again."""
    problems = [line for patch in patches.PATCHES for line in patches.version_problems(patch)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("patch", patches.PATCHES, ids=lambda patch: patch.name)
def test_the_guard_names_the_patch_when_another_version_is_installed(
    patch: patches.Patch,
) -> None:
    problems = patches.version_problems(patch, lambda distribution: "99.0.1")
    assert len(problems) == len(patch.written_for)
    for (distribution, version), problem in zip(patch.written_for, problems, strict=True):
        assert f"live patch {patch.name!r}" in problem
        assert f"written for {distribution} {version}, and 99.0.1 is installed" in problem
        assert patch.where in problem
    # The versions it was written for: no problem.
    written = dict(patch.written_for)
    assert patches.version_problems(patch, written.__getitem__) == []
    # The same release built by a distribution (a local label): the same code, no problem.
    assert patches.version_problems(patch, lambda d: f"{written[d]}+deb12u1") == []
    # A later post-release or a pre-release is other code.
    assert len(patches.version_problems(patch, lambda d: f"{written[d]}.post1")) == len(written)


def _installed(**versions: str) -> Callable[[str], str]:
    """importlib.metadata.version, answering `versions` (distribution names with _ for -)."""
    version = importlib.metadata.version
    pinned = {name.replace("_", "-"): found for name, found in versions.items()}

    def installed(distribution: str) -> str:
        return pinned.get(distribution) or version(distribution)

    return installed


def test_the_guard_reads_what_importlib_metadata_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """python-engineio 4.16.0 installed in place of 4.15.1: the guard names every patch
    written for 4.15.1."""
    monkeypatch.setattr(importlib.metadata, "version", _installed(python_engineio="4.16.0"))
    named = {
        patch.name
        for patch in patches.PATCHES
        for problem in patches.version_problems(patch)
        if "python-engineio 4.15.1, and 4.16.0 is installed" in problem
    }
    assert named == {
        "writer-poll",
        "websocket-wire",
        "websocket-end",
        "environ-without-class",
        "deliveries",
    }


@pytest.mark.parametrize("start", [patches.apply, patches.apply_loop], ids=["app", "loop"])
def test_a_server_refuses_to_start_on_another_version_of_a_product_patchs_library(
    restored: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    start: Callable[..., object],
) -> None:
    """python-socketio 5.19.0 installed: the product's own patches of it (redis-link,
    engineio-connect, deliveries) rest on its private code, so the server does not start,
    saying which library, the version found and the one each patch was written for; whatever
    BFF_LIVE_TUNING says. BFF_LIVE_PATCHES_FORCE starts it anyway, warning of each."""
    monkeypatch.setattr(importlib.metadata, "version", _installed(python_socketio="5.19.0"))
    for tuning in ("on", "off"):
        with pytest.raises(patches.PatchVersionError) as refused:
            start(tuning)
        message = str(refused.value)
        assert message.startswith("The server does not start: ")
        for name in ("redis-link", "engineio-connect", "deliveries"):
            assert f"live patch {name!r}" in message
        assert "written for python-socketio 5.18.1, and 5.19.0 is installed" in message
        assert "BFF_LIVE_PATCHES_FORCE=true" in message
        assert "rooms-by-connection" not in message  # optional: left out, not refused
    start("on", True)  # forced: applied (`apply` warns of each, below)
    with caplog.at_level(logging.WARNING, logger="bff.live.patches"):
        patches.apply("on", True)
    forced = [m for m in caplog.messages if "5.19.0 is installed" in m and "(applied:" in m]
    written_for_socketio = {"redis-link", "engineio-connect", "deliveries", "rooms-by-connection"}
    assert {_named(m) for m in forced} == written_for_socketio


def test_an_optional_patch_written_for_another_version_is_left_out_unless_forced(
    restored: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Hypercorn 0.19.0 installed: its optional patches (no-compression, free-connections,
    websocket-wire) are left out, Hypercorn's own code in place, each named in a warning with
    both versions; the others still applied. Forced, they are applied, with a warning each."""
    monkeypatch.setattr(importlib.metadata, "version", _installed(hypercorn="0.19.0"))
    mismatched = {"no-compression", "free-connections", "websocket-wire"}
    with caplog.at_level(logging.WARNING, logger="bff.live.patches"):
        applied = patches.apply("on")
    assert not applied & mismatched
    assert {"writer-poll", "websocket-end", "redis-link"} <= applied
    assert ws_stream.PerMessageDeflate.__module__.startswith("wsproto")
    assert TCPServer.run is patches.BY_NAME["free-connections"].replacements[0].stock
    left_out = [m for m in caplog.messages if "is off" in m and "0.19.0 is installed" in m]
    assert {_named(m) for m in left_out} == mismatched
    assert all("written for hypercorn 0.18.0" in m for m in left_out)
    assert patches.chosen("on") == applied  # the managers and the Wire chosen the same way

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bff.live.patches"):
        applied = patches.apply("on", True)
    assert mismatched <= applied
    assert TCPServer.run is patches.BY_NAME["free-connections"].replacements[0].ours
    forced = [m for m in caplog.messages if "0.19.0 is installed" in m]
    assert {_named(m) for m in forced} == mismatched
    assert all("(applied: BFF_LIVE_PATCHES_FORCE=true)" in m for m in forced)


def test_the_start_up_names_each_patch_left_out_and_what_it_costs(
    caplog: pytest.LogCaptureFixture, restored: None
) -> None:
    """An operator's way back is visible: each patch BFF_LIVE_TUNING leaves out is named in
    a warning with what running without it costs (a limit it carries, its measured gain)."""
    with caplog.at_level(logging.WARNING, logger="bff.live.patches"):
        patches.apply("on")
    assert not [m for m in caplog.messages if "is off" in m]
    with caplog.at_level(logging.WARNING, logger="bff.live.patches"):
        patches.apply("off")
        patches.apply_loop("off")
    off = {_named(m): m for m in caplog.messages if "is off" in m}
    assert set(off) == set(LIVE_PATCHES)
    assert "BFF_LIVE_TUNING=off" in off["no-compression"]
    assert patches.BY_NAME["no-compression"].gain in off["no-compression"]
    assert "not at once" in off["websocket-wire"]  # the limit it carries


def test_a_real_start_refuses_a_product_patch_written_for_another_version(
    tmp_path: Path,
) -> None:
    """As Hypercorn loads bff.asgi with python-socketio 5.19.0 installed: one clear line and
    exit status 2, no traceback; with BFF_LIVE_PATCHES_FORCE=true it loads."""
    load = (
        "import importlib.metadata as m; version = m.version; "
        "m.version = lambda d: '5.19.0' if d == 'python-socketio' else version(d); "
        "import bff.asgi"
    )
    command = [sys.executable, "-c", load]
    env = local_env(tmp_path)
    refused = subprocess.run(  # noqa: S603 - this Python, fixed arguments
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert refused.returncode == 2, refused.stderr
    assert "The server does not start: live patch 'redis-link'" in refused.stderr
    assert "python-socketio 5.18.1, and 5.19.0 is installed" in refused.stderr
    assert "Traceback" not in refused.stderr
    forced = subprocess.run(  # noqa: S603 - this Python, fixed arguments
        command,
        cwd=REPO,
        env={**env, "BFF_LIVE_PATCHES_FORCE": "true"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert forced.returncode == 0, forced.stderr


def _named(message: str) -> str:
    """The patch a warning names (its first quoted name)."""
    match = re.search(r"'([a-z-]+)'", message)
    assert match, message
    return match.group(1)


def _locked() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep:
            pins[re.sub(r"[-_.]+", "-", name.strip().lower())] = version.split()[0]
    return pins


def test_each_patch_is_written_for_the_version_requirements_lock_pins() -> None:
    """So a change of the lock without the patches fails here before anything is installed."""
    pins = _locked()
    for patch in patches.PATCHES:
        for distribution, version in patch.written_for:
            if distribution != patches.PYTHON:
                assert pins[distribution] == version, (patch.name, distribution)


def test_the_setting_knows_every_optional_patch() -> None:
    assert tuple(patch.name for patch in patches.PATCHES if patch.optional) == LIVE_PATCHES
    assert all(patch.gain and patch.replaces and patch.written_for for patch in patches.PATCHES)


def test_the_setting_chooses_the_patches() -> None:
    optional = set(LIVE_PATCHES)
    kept = {patch.name for patch in patches.PATCHES} - optional
    assert patches.chosen("on") == optional | kept
    assert patches.chosen("off") == kept
    # websocket-wire needs writer-poll: left out with it.
    without = patches.chosen("off:writer-poll")
    assert without == (optional | kept) - {"writer-poll", "websocket-wire"}
    assert load_settings(live_tuning=" OFF ").live_tuning == "off"
    assert load_settings(live_tuning="off: no-compression ,").live_tuning == "off:no-compression"
    for wrong in ("off:", "sometimes", "off:nonsense", "on:no-compression", "off:deliveries"):
        with pytest.raises(SettingsError, match="BFF_LIVE_TUNING"):
            load_settings(live_tuning=wrong)


@pytest.fixture
def restored() -> Iterator[None]:
    """The patches as the tests' own setting has them, and asyncio's event loop policy as it
    was (`apply_loop` sets one), afterwards."""
    policy = asyncio.get_event_loop_policy()
    yield
    patches.apply(Settings().live_tuning)
    asyncio.set_event_loop_policy(policy)


def test_off_puts_the_libraries_own_code_back(restored: None) -> None:
    patches.apply("off")
    replacements = [r for patch in patches.PATCHES for r in patch.replacements]
    assert replacements and not any(r.applied for r in replacements)
    assert ws_stream.PerMessageDeflate.__module__.startswith("wsproto")
    assert engineio.async_socket.AsyncSocket.poll.__module__.startswith("engineio")
    assert engineio.async_drivers.asgi.WebSocket.wait.__module__.startswith("engineio")
    assert engineio.async_drivers.asgi._async["translate_request"].__module__.startswith("engineio")
    patches.apply("on")
    assert all(r.applied for r in replacements)
    patches.apply("off:no-compression")
    applied = {p.name for p in patches.PATCHES if any(r.applied for r in p.replacements)}
    assert "no-compression" not in applied and "free-connections" in applied


@pytest.mark.parametrize("tuning", ["on", "off"])
async def test_a_served_app_delivers_events_either_way(
    database_url: str, run_dir: Path, tmp_path: Path, tuning: str, restored: None
) -> None:
    """A real server with the patches on and off: an event reaches a connected client; with
    them off the libraries' own code serves it (no Wire, python-socketio's room lookups)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", live_tuning=tuning
    )
    async for live in run_live(settings):
        admin = await make_staff(live.settings, Role.ADMIN)
        nurse = await make_staff(live.settings, Role.NURSE)
        listener = await live.listener(nurse.token)
        await marker(live, admin, listener, nurse.user)
        hub = app_services(live.app).live
        manager = hub.sio.manager
        sockets = list(hub.sio.eio.sockets.values())
        assert sockets
        if tuning == "on":
            assert isinstance(manager, RoomsKeptLocalManager)
            assert all(isinstance(getattr(s, "wire", None), Wire) for s in sockets)
            assert TCPServer.run is patches.BY_NAME["free-connections"].replacements[0].ours
        else:
            assert type(manager) is LocalManager
            assert all(getattr(s, "wire", None) is None for s in sockets)
            assert TCPServer.run is patches.BY_NAME["free-connections"].replacements[0].stock
