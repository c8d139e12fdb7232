"""Each connection's rooms kept by connection (`RoomsByConnection`), mixed into both managers
(bff/live/managers.py) while the rooms-by-connection patch is on: python-socketio's
`basic_disconnect` and `get_rooms` replaced by lookups of the leaving connection's own rooms,
over python-socketio's rooms, callbacks and pending tables. See its declaration in __init__.py.
"""

from __future__ import annotations

from typing import Any


class RoomsByConnection:
    """python-socketio finds the rooms of a connection that leaves by looking through every room
    of the namespace, and each connection has a room of its own (its sid) besides its user's
    and session's: a disconnect costs time in proportion to the connections (5,000 tabs
    leaving at once, side by side: 1.88 ms of the worker's CPU per connection, 1.25 ms with
    this and the other changes of that run, docs/capacity.md). Here a disconnect looks only
    at its own rooms."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # namespace -> sid -> the rooms it is in (None, python-socketio's "connected", too)
        self._rooms_of: dict[str, dict[Any, set[Any]]] = {}

    def basic_enter_room(self, sid: Any, namespace: str, room: Any, eio_sid: Any = None) -> None:
        super().basic_enter_room(sid, namespace, room, eio_sid=eio_sid)  # type: ignore[misc]
        self._rooms_of.setdefault(namespace, {}).setdefault(sid, set()).add(room)

    def basic_leave_room(self, sid: Any, namespace: str, room: Any) -> None:
        super().basic_leave_room(sid, namespace, room)  # type: ignore[misc]
        members = self._rooms_of.get(namespace, {})
        rooms = members.get(sid)
        if rooms is not None:
            rooms.discard(room)
            if not rooms:
                del members[sid]
                if not members:
                    del self._rooms_of[namespace]

    def basic_disconnect(self, sid: Any, namespace: str, **kwargs: Any) -> None:
        """python-socketio's, leaving only the rooms `sid` is in."""
        manager: Any = self  # mixed into a socketio manager
        if namespace not in manager.rooms:
            return
        for room in list(self._rooms_of.get(namespace, {}).get(sid, ())):
            self.basic_leave_room(sid, namespace, room)
        manager.callbacks.pop(sid, None)
        for pending in (manager.pending_connect, manager.pending_disconnect):
            waiting = pending.get(namespace)
            if waiting is not None and sid in waiting:
                waiting.remove(sid)
                if not waiting:
                    del pending[namespace]

    def get_rooms(self, sid: Any, namespace: str) -> list[Any]:
        """The rooms `sid` is in (python-socketio's, without looking through every room)."""
        return [room for room in self._rooms_of.get(namespace, {}).get(sid, ()) if room is not None]
