"""A held file's live events (issue 49): a file stored while the scanner was unavailable is the
admins' only until a scan lets it out, its name too, so its upload, its deletion and a rescan's
finding are told to admins only (real Socket.IO clients of an admin and of a nurse of the
folder); its release on a clean rescan is told to the folder's staff."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bff.scan.rescan import rescan_files
from tests.conftest import make_settings
from tests.files.conftest import Ward
from tests.live.conftest import Listener, marker, run_live
from tools.testclamd import EICAR, RunningClamd

FILE_EVENTS = ("file:uploaded", "file:indexed", "file:preview", "file:deleted")


async def _heard(listener: Listener, event: str, name: str, within: float = 10.0) -> None:
    """Wait until listener has received event about the file name."""
    async with asyncio.timeout(within):
        while True:
            for heard, data in listener.events:
                if heard == event and data.get("name") == name:
                    return
            await asyncio.sleep(0.01)


def _file_events(listener: Listener, since: int = 0) -> list[tuple[str, str]]:
    return [(e, d["name"]) for e, d in listener.events[since:] if e in FILE_EVENTS]


async def test_a_held_files_events_reach_admins_only_until_it_is_released(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        clamd=clamd.address,
        scan_unavailable="hold",
        scan_seconds=10,
    )
    async for live in run_live(settings):
        ward = await Ward(live.app, settings).setup()
        admin_ears = await live.listener(ward.admin.token, "admin")
        nurse_ears = await live.listener(ward.nurse.token, "nurse")
        clamd.stop()
        try:
            for name, data in (("notes.txt", b"ward notes\n"), ("eicar.txt", EICAR)):
                assert (await ward.upload(ward.nurse, name, data)).status_code == 201
            assert (await ward.upload(ward.nurse, "other.txt", b"more\n")).status_code == 201
            for name in ("notes.txt", "eicar.txt", "other.txt"):
                await _heard(admin_ears, "file:uploaded", name)
            deleted = await ward.client.delete(ward.url("other.txt"), headers=ward.admin.headers)
            assert deleted.status_code == 200, await deleted.get_data()
            await _heard(admin_ears, "file:deleted", "other.txt")
            await marker(live, ward.admin, nurse_ears, ward.nurse.user)
            assert _file_events(nurse_ears) == []
        finally:
            clamd.start()

        since = len(nurse_ears.events)
        async with live.app.app_context():  # as the app's Periodic runs it
            # notes.txt, eicar.txt and the held trash entry other.txt (released, no event)
            assert await rescan_files(ward.storage) == 3
        # Released: its staff may see it now and are told.
        assert (await nurse_ears.wait_for("file:uploaded", since=since))["name"] == "notes.txt"
        # Found infected: its name was never theirs.
        await _heard(admin_ears, "file:deleted", "eicar.txt")
        await admin_ears.wait_for("file:quarantined")
        await marker(live, ward.admin, nurse_ears, ward.nurse.user)
        assert [e for e in _file_events(nurse_ears, since) if e[0] != "file:indexed"] == [
            ("file:uploaded", "notes.txt")
        ]
        assert "file:quarantined" not in nurse_ears.names()
