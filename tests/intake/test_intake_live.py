"""Intake events over a real Socket.IO connection (issue 51): intake:received, intake:filed and
intake:deleted reach admins and the staff granted the intake permission, never anyone else, and
a withdrawal stops them at once for a connection already open; a filed item appears in its
folder live as an upload does (file:uploaded to the folder's staff)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.intake.desk import Desk, png
from tests.live.conftest import LiveServer, marker, run_live


@pytest.fixture
async def live(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[LiveServer]:
    settings = make_settings(database_url, run_dir, storage_url=f"file://{tmp_path}/storage")
    async for server in run_live(settings):
        yield server


INTAKE_EVENTS = {"intake:received", "intake:filed", "intake:deleted"}


async def test_intake_events_reach_only_the_intake_holders(live: LiveServer) -> None:
    desk = await Desk(live.app, live.settings).setup()
    admin_ears = await live.listener(desk.admin.token, "admin")
    clerk_ears = await live.listener(desk.clerk.token, "clerk")
    nurse_ears = await live.listener(desk.nurse.token, "nurse")  # assigned the folder, no grant

    [first] = await desk.batch(desk.clerk, [("letter.png", png())])
    item_id = first["item"]["id"]
    assert await admin_ears.wait_for("intake:received") == {"id": item_id}
    assert await clerk_ears.wait_for("intake:received") == {"id": item_id}

    filed = await desk.file(desk.clerk, item_id, name="letter.png")
    assert filed.status_code == 200, await filed.get_data(as_text=True)
    expected = {
        "id": item_id,
        "container": desk.container.name,
        "folder": desk.folder.name,
        "name": "letter.png",
    }
    assert await clerk_ears.wait_for("intake:filed") == expected
    # The folder's staff see the file arrive as an upload, intake permission or not.
    uploaded = await nurse_ears.wait_for("file:uploaded")
    assert uploaded["name"] == "letter.png" and uploaded["folder"] == desk.folder.name

    await marker(live, desk.admin, nurse_ears, desk.nurse.user)
    assert not set(nurse_ears.names()) & INTAKE_EVENTS

    # Withdrawn while her connection stays open: the next events pass her by.
    withdrawn = await desk.grant(desk.clerk, False)
    assert withdrawn.status_code == 200
    since, admin_since = len(clerk_ears.events), len(admin_ears.events)
    [second] = await desk.batch(desk.admin, [("fax.png", png())])
    received = await admin_ears.wait_for("intake:received", since=admin_since)
    assert received == {"id": second["item"]["id"]}
    deleted = await desk.delete(desk.admin, second["item"]["id"], {"reason": "wrong fax"})
    assert deleted.status_code == 200
    assert await admin_ears.wait_for("intake:deleted") == {"id": second["item"]["id"]}
    await marker(live, desk.admin, clerk_ears, desk.clerk.user)
    assert not set(clerk_ears.names()[since:]) & INTAKE_EVENTS
