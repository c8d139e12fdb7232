"""Each connection's rooms, kept by connection (bff/live/managers.py's `_Delivering`): the same
rooms python-socketio's own lookup finds, and a disconnect that looks only at the leaving
connection's rooms, never through every room of the server (each connection has one of its
own, so that would cost in proportion to the connections, at each of them leaving)."""

from __future__ import annotations

from typing import Any

import pytest
from socketio.base_manager import BaseManager

from bff.live.events import ADMINS, user_room
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer


def _rooms_as_python_socketio_finds_them(manager: Any) -> dict[Any, set[Any]]:
    """Every connected sid's rooms, by python-socketio's own lookup (through every room)."""
    return {
        sid: set(BaseManager.get_rooms(manager, sid, "/"))
        for sid, _ in manager.get_participants("/", None)
    }


def _rooms_as_kept(manager: Any) -> dict[Any, set[Any]]:
    return {sid: set(manager.get_rooms(sid, "/")) for sid, _ in manager.get_participants("/", None)}


class _Watched(dict[Any, Any]):
    """A namespace's rooms that note every look through all of them."""

    looks = 0

    def _look(self) -> None:
        _Watched.looks += 1

    def copy(self) -> dict[Any, Any]:
        self._look()
        return dict(self)

    def items(self) -> Any:
        self._look()
        return super().items()

    def __iter__(self) -> Any:
        self._look()
        return super().__iter__()


@pytest.mark.live_patch(
    "rooms-by-connection", why="python-socketio's own disconnect looks through every room"
)
async def test_each_connection_leaves_only_its_own_rooms(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    manager = app_services(live.app).live.sio.manager
    admin_tab = await live.listener(admin.token, "admin")
    nurse_tabs = [await live.listener(nurse.token, f"nurse-{i}") for i in range(3)]
    kept = _rooms_as_kept(manager)
    assert kept == _rooms_as_python_socketio_finds_them(manager)
    assert len(kept) == 4
    assert sum(ADMINS in rooms for rooms in kept.values()) == 1
    assert sum(user_room(nurse.user.id) in rooms for rooms in kept.values()) == 3

    monkeypatch.setattr(_Watched, "looks", 0)
    manager.rooms["/"] = _Watched(manager.rooms["/"])
    await nurse_tabs[0].close()
    await admin_tab.close()
    for _ in range(100):
        if len(list(manager.get_participants("/", None))) == 2:
            break
        await nurse_tabs[1].client.sleep(0.02)
    assert _Watched.looks == 0  # two disconnects, without looking through every room
    kept = _rooms_as_kept(manager)
    assert kept == _rooms_as_python_socketio_finds_them(manager)
    assert len(kept) == 2 and all(user_room(nurse.user.id) in rooms for rooms in kept.values())
    assert ADMINS not in manager.rooms["/"]  # its last member left: the room is gone

    # The ones still here go on getting their events.
    hub = app_services(live.app).live
    await hub.send("test:still", {}, [user_room(nurse.user.id)])
    for tab in nurse_tabs[1:]:
        await tab.wait_for("test:still")
    for tab in nurse_tabs[1:]:
        await tab.close()
    for _ in range(100):
        if not manager._rooms_of:
            break
        await nurse_tabs[1].client.sleep(0.02)
    assert manager._rooms_of == {}  # nothing kept for connections that left
