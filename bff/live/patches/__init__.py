"""The live layer's patches of other libraries' code, declared in one place (`PATCHES`): each
replaces code that python-engineio, python-socketio, Hypercorn or asyncio do not export, was
written against one version of it (the one requirements.lock pins; Python's minor version for
asyncio) and is kept for a gain measured with bench/live_bench.py (docs/capacity.md).

Upgrading one of those libraries is a deliberate act: tests/live/test_patches.py fails, naming
the patch, when an installed version differs from the one a patch was written for, and a
server started so leaves such an optional patch out (a warning naming the library and both
versions: the library's own code runs) and refuses to start when a non-optional one differs
(`PatchVersionError`), unless BFF_LIVE_PATCHES_FORCE says to apply them anyway. Read the patch
against the new version's code, measure it again, then change its `written_for` here.

BFF_LIVE_TUNING (config/settings.py) chooses the optional patches applied: `on` (all), `off`
(the stock libraries: an operator's way back) or `off:NAME,...` (all but those). `apply` sets
them when the app is served (bff/live/server.py's `asgi_app`), `apply_loop` the event loop's
(bff/asgi.py, before Hypercorn's worker makes its loop); a patch left out leaves the library's
own code in place, or puts it back, and is named in a warning at start-up with what running
without it costs. The others (`optional=False`) are the product's own behaviour, not a
tuning: applied whatever the setting says, declared here for the guard.
"""

from __future__ import annotations

import importlib.metadata
import logging
import sys
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import engineio.async_drivers.asgi
import engineio.async_socket
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.protocol import ws_stream

from bff.live.patches import engineio_sockets, hypercorn_connections, loop

log = logging.getLogger(__name__)

PYTHON = "python"  # the standard library's patches: written for Python's minor version
ENGINEIO = ("python-engineio", "4.15.1")
SOCKETIO = ("python-socketio", "5.18.1")
HYPERCORN = ("hypercorn", "0.18.0")
WSPROTO = ("wsproto", "1.3.2")
ASYNCIO = (PYTHON, "3.11")


class Replacement:
    """One name in a library's class, module or table: ours, or the library's own put back."""

    def __init__(self, owner: Any, name: str, ours: Any) -> None:
        self.owner = owner
        self.name = name
        self.ours = ours
        self.stock = self._get()  # taken at import, before anything is applied

    def _get(self) -> Any:
        if isinstance(self.owner, MutableMapping):
            return self.owner[self.name]
        return getattr(self.owner, self.name)

    def put(self, on: bool) -> None:
        """Ours (`on`) or the library's own."""
        value = self.ours if on else self.stock
        if isinstance(self.owner, MutableMapping):
            self.owner[self.name] = value
        else:
            setattr(self.owner, self.name, value)

    @property
    def applied(self) -> bool:
        return self._get() is self.ours


@dataclass(frozen=True)
class Patch:
    """One patch: what it replaces, the versions it was written for, what it gains."""

    name: str  # as BFF_LIVE_TUNING names it (config/checks.py LIVE_PATCHES)
    written_for: tuple[tuple[str, str], ...]  # (distribution, version) pairs
    replaces: str
    gain: str  # measured, from docs/capacity.md
    where: str  # our code
    # Set in place by `apply`; none for a subclass chosen elsewhere (the managers, the loop).
    replacements: tuple[Replacement, ...] = ()
    needs: tuple[str, ...] = ()  # patches without which it does nothing
    optional: bool = True  # False: the product's behaviour, whatever BFF_LIVE_TUNING says
    # What a server without it lacks beyond its gain (a limit it carries), for the warning.
    without: str = ""


PATCHES = (
    Patch(
        "no-compression",
        (HYPERCORN, WSPROTO),
        "hypercorn.protocol.ws_stream.PerMessageDeflate (wsproto's, which accepts any client's "
        "offer; Hypercorn has no setting for it, pgjones/hypercorn#307) with one that declines",
        "memory per connection 43.7 KB with it, 138.3 KB without (2,000 clients offering "
        "permessage-deflate as browsers do); fan-out p99 207 against 353 ms "
        "(docs/capacity.md, side by side on 2026-12-05)",
        "bff/live/patches/hypercorn_connections.py",
        (Replacement(ws_stream, "PerMessageDeflate", hypercorn_connections.NoCompression),),
    ),
    Patch(
        "free-connections",
        (HYPERCORN, ASYNCIO),
        "hypercorn.asyncio.tcp_server.TCPServer.run, then asyncio's transport's private "
        "_read_ready_cb at a connection's end",
        "the worker's RSS growth per connection at a reconnect storm, over the first storm's: "
        "+16.6, +17.1 KB -> +1.4, +1.9 KB at 5,000, +16.2 -> +0.4 KB at 2,000 (docs/capacity.md, "
        "2026-12-02, side by side with f52a0a6)",
        "bff/live/patches/hypercorn_connections.py",
        (Replacement(TCPServer, "run", hypercorn_connections.run_then_let_go),),
    ),
    Patch(
        "writer-poll",
        (ENGINEIO,),
        "engineio.async_socket.AsyncSocket.poll: a websocket's writer waits on its queue "
        "without a timer per packet, and says when it waits with nothing (for direct writes)",
        "with delivery in turns and the collector's schedule (measured together, 2026-11-28, "
        "side by side with f3718b9): CPU per delivered event 170 -> 113 us at 2,000, "
        "215 -> 132 us at 5,000; and what websocket-wire needs",
        "bff/live/patches/engineio_sockets.py",
        (Replacement(engineio.async_socket.AsyncSocket, "poll", engineio_sockets.poll),),
    ),
    Patch(
        "websocket-wire",
        (ENGINEIO, HYPERCORN, WSPROTO),
        "engineio.async_socket.AsyncSocket._upgrade_websocket, keeping the connection's Wire "
        "(Hypercorn's private connection state) on its socket: an event's frame written once "
        "and straight to each idle websocket, a stalled client's TCP connection aborted at "
        "once (bff/live/delivery.py cuts it at Engine.IO without); and how to end a late "
        "long-polling session's upgrading websockets (bff/live/polling.py)",
        "CPU per delivered event 240 -> 86 us at 5,000, the fan-out's p99 1,020 -> 306 ms "
        "(024ce07 against c97f821); 201 -> 80 us with rooms-by-connection (docs/capacity.md, "
        "2026-11-28)",
        "bff/live/patches/engineio_sockets.py, wire.py",
        (
            Replacement(
                engineio.async_socket.AsyncSocket,
                "_upgrade_websocket",
                engineio_sockets.upgrade_with_wire,
            ),
        ),
        needs=("writer-poll",),
        without="a long-polling session closed for not signing in ends a websocket that "
        "upgraded it within engineio's ping interval and timeout (45 s), not at once",
    ),
    Patch(
        "websocket-end",
        (ENGINEIO,),
        "engineio.async_drivers.asgi.WebSocket.wait: a websocket's end answered None, where "
        "engineio raises OSError (its traceback held the connection's handler in a cycle)",
        "objects closed connections left for the full collection: 260,000 -> 85,000 for "
        "5,000 (2026-11-28); with environ-without-class, the worker's RSS growth per "
        "connection at a reconnect storm +5.4 KB without them, +0.9 KB with them "
        "(docs/capacity.md, side by side on 2026-12-05)",
        "bff/live/patches/engineio_sockets.py",
        (Replacement(engineio.async_drivers.asgi.WebSocket, "wait", engineio_sockets.wait),),
    ),
    Patch(
        "environ-without-class",
        (ENGINEIO,),
        "engineio.async_drivers.asgi.translate_request (its _async table): the same environ "
        "without a class defined at every call (a class is always in a reference cycle)",
        "17 objects per closed connection left for the full collection -> 0 (170 for 10 in "
        "tests/live/test_wire.py, 2026-11-28); with websocket-end: see its gain "
        "(docs/capacity.md, 2026-12-05)",
        "bff/live/patches/engineio_sockets.py",
        (
            Replacement(
                engineio.async_drivers.asgi._async,
                "translate_request",
                engineio_sockets.translate_request,
            ),
        ),
    ),
    Patch(
        "accept-in-turns",
        (ASYNCIO,),
        "asyncio's private BaseSelectorEventLoop._accept_connection (TurnTakingLoop, set as "
        "the event loop policy by bff/asgi.py): 4 new connections a turn, not the backlog",
        "/api/auth/me during a 5,000 storm p99 80.8 ms with it, 219.9 ms and 7 clients refused "
        "without (docs/capacity.md, side by side on 2026-12-05; with delivery in turns and the "
        "collector's schedule on 2026-11-28: p99 881 -> 37 ms at 2,000)",
        "bff/live/patches/loop.py",
    ),
    Patch(
        "ready-in-turns",
        (ASYNCIO,),
        "selectors.EpollSelector.select over its private _selector and _key_from_fd "
        "(_TurnSelector): 16 ready connections a turn of the loop, not all of them",
        "/api/auth/me during a mass disconnect of 2,000, p99 927, 1,009 -> 440, 654 ms "
        "(2026-11-28, against 92af504); again 1,040 -> 665 ms, weakly (a handful of requests; "
        "docs/capacity.md, 2026-12-05); the storm's p99 within its spread",
        "bff/live/patches/loop.py",
    ),
    Patch(
        "rooms-by-connection",
        (SOCKETIO,),
        "socketio's BaseManager.basic_disconnect and get_rooms (over its rooms, callbacks, "
        "pending_connect and pending_disconnect): a disconnect looks at its own rooms only "
        "(RoomsByConnection, mixed into the managers bff/live/server.py chooses)",
        "a mass disconnect of 2,000: worker CPU per connection 585 us without it, 370 us with "
        "it (docs/capacity.md, side by side on 2026-12-05)",
        "bff/live/patches/rooms.py",
    ),
    Patch(
        "redis-link",
        (SOCKETIO,),
        "socketio's AsyncRedisManager._redis_listen_with_retries and "
        "AsyncPubSubManager._handle_emit (bff/live/managers.py's RedisManager)",
        "not a tuning: the Redis link's state, sign-out fences, the session cache told of "
        "other processes' changes (docs/operations.md)",
        "bff/live/managers.py",
        optional=False,
    ),
    Patch(
        "engineio-connect",
        (SOCKETIO,),
        "socketio's AsyncServer._handle_eio_connect and _handle_eio_disconnect, called from "
        "ours (bff/live/polling.py's PollingSessions)",
        "not a tuning: long-polling sessions counted and closed as BFF_LIVE_CONNECT_SECONDS "
        "and BFF_LIVE_UNCONNECTED_PER_ADDRESS say",
        "bff/live/polling.py",
        optional=False,
    ),
    Patch(
        "deliveries",
        (SOCKETIO, ENGINEIO, WSPROTO),
        "socketio's AsyncManager.emit without a callback (the managers' rooms table, "
        "packet_class and the Engine.IO server's send_packet read directly; wsproto's "
        "FrameProtocol frames each event once for every websocket)",
        "not a tuning: events delivered in order, a slice at a turn of the loop "
        "(bff/live/delivery.py; docs/capacity.md)",
        "bff/live/delivery.py",
        optional=False,
    ),
)
BY_NAME = {patch.name: patch for patch in PATCHES}
LOOP = ("accept-in-turns", "ready-in-turns")  # set by `apply_loop`, the others by `apply`
FORCE = "BFF_LIVE_PATCHES_FORCE"  # the setting that applies them whatever the versions


class PatchVersionError(Exception):
    """A non-optional patch was written for another version of a library than the one
    installed: the server does not start (the message names each, and the way out)."""


def chosen(tuning: str, force: bool = False) -> frozenset[str]:
    """The patches BFF_LIVE_TUNING applies: `on`, `off` or `off:NAME,...` (checked by
    config/checks.py), less each optional one written for another version of a library than
    the one installed (unless `force`); a patch whose `needs` are left out is left out too."""
    names = {patch.name for patch in PATCHES}
    if tuning == "off":
        names = {patch.name for patch in PATCHES if not patch.optional}
    elif tuning.startswith("off:"):
        names -= {name for name in tuning.removeprefix("off:").split(",") if name in BY_NAME}
        names |= {patch.name for patch in PATCHES if not patch.optional}
    if not force:
        names -= {name for name in names if BY_NAME[name].optional and _differs(BY_NAME[name])}
    while missing := {name for name in names if not set(BY_NAME[name].needs) <= names}:
        names -= missing
    return frozenset(names)


def installed_version(distribution: str) -> str:
    """The version installed here (Python's minor version for the standard library)."""
    if distribution == PYTHON:
        return f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def same_release(found: str, written_for: str) -> bool:
    """Whether the installed version is the release a patch was written for: a local label
    (PEP 440, after "+", as a distribution's own build adds) is the same upstream code."""
    return found.split("+", 1)[0] == written_for


def version_problems(patch: Patch, installed: Callable[[str], str] | None = None) -> list[str]:
    """One line per library whose installed version (`installed_version`, or what `installed`
    says) is not the one `patch` was written for, naming the patch, the library and both
    versions."""
    problems = []
    for distribution, version in patch.written_for:
        found = (installed or installed_version)(distribution)
        if same_release(found, version):
            continue
        problems.append(
            f"live patch {patch.name!r} ({patch.where}) was written for {distribution} "
            f"{version}, and {found} is installed: read it against {distribution} {found}'s "
            f"code, measure its gain again (docs/capacity.md), then set its version in "
            f"bff/live/patches/__init__.py"
        )
    return problems


def _differs(patch: Patch) -> bool:
    return any(
        not same_release(installed_version(distribution), version)
        for distribution, version in patch.written_for
    )


def refuse_other_versions(force: bool = False) -> None:
    """Raise PatchVersionError, naming each, when a non-optional patch was written for another
    version of a library than the one installed: the product's own behaviour rests on that
    library's private code, so the server must not start on code nobody has read against it
    (unless `force`: BFF_LIVE_PATCHES_FORCE; `apply` warns of each)."""
    problems = [
        problem for patch in PATCHES if not patch.optional for problem in version_problems(patch)
    ]
    if problems and not force:
        raise PatchVersionError(
            "The server does not start: "
            + "; ".join(problems)
            + ". Install the version each was written for (requirements.lock), or set "
            + f"{FORCE}=true to start with it anyway"
        )


def _report(
    names: frozenset[str], tuning: str, force: bool, which: Callable[[Patch], bool]
) -> None:
    """Warn of each optional patch (among those `which` picks) left out, saying why and what
    running without it costs, and of each applied although written for another version."""
    for patch in PATCHES:
        if not which(patch):
            continue
        problems = version_problems(patch)
        if patch.name in names:
            for problem in problems:
                log.warning("%s (applied: %s=true)", problem, FORCE)
            continue
        if not patch.optional:
            continue
        if problems and not force:
            why = "; ".join(problems) + f"; the library's own code runs ({FORCE}=true applies it)"
        elif not set(patch.needs) <= names:
            why = f"it needs {', '.join(patch.needs)}, left out"
        else:
            why = f"BFF_LIVE_TUNING={tuning}: the library's own code runs"
        cost = f"without it: {patch.without}; and it forgoes " if patch.without else "it forgoes "
        log.warning("Live patch %r is off (%s); %s%s", patch.name, why, cost, patch.gain)


def apply(tuning: str, force: bool = False) -> frozenset[str]:
    """Set the patches BFF_LIVE_TUNING chooses (`chosen`) in place and put the library's own
    code back for the others, warning of each left out (why, and what it costs); raise
    PatchVersionError if a non-optional one was written for another version of a library
    (`refuse_other_versions`). Returns the names of the patches applied (the managers, the
    Wire and the loop are chosen from them)."""
    refuse_other_versions(force)
    names = chosen(tuning, force)
    for patch in PATCHES:
        for replacement in patch.replacements:
            replacement.put(patch.name in names)
    _report(names, tuning, force, lambda patch: patch.name not in LOOP)
    return names


def apply_loop(tuning: str, force: bool = False) -> None:
    """The event loops this process makes from now on: taking turns as BFF_LIVE_TUNING chooses
    (accept-in-turns, ready-in-turns), or asyncio's own; as `apply`, refusing other versions of
    the non-optional patches' libraries and warning of each of these left out."""
    refuse_other_versions(force)
    names = chosen(tuning, force)
    loop.take_turns("accept-in-turns" in names, "ready-in-turns" in names)
    _report(names, tuning, force, lambda patch: patch.name in LOOP)
