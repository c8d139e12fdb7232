"""Long-polling sessions until they connect at Socket.IO (`PollingSessions`): each is
`Unconnected` (bff/live/unconnected.py) from Engine.IO's connect until its Socket.IO CONNECT,
and closed if BFF_LIVE_CONNECT_SECONDS pass first. A websocket's are HandshakeGate's
(bff/live/transport.py). Installed as the Engine.IO server's connect and disconnect handlers,
which call python-socketio's own (the engineio-connect patch, bff/live/patches/).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import socketio

from bff import metrics
from bff.live.transport import POLLING_PLACE
from bff.live.unconnected import CROWDED, Unconnected, client_address


class PollingSessions:
    """This process's long-polling sessions not connected at Socket.IO: Engine.IO sid ->
    (client address, the timer closing the session when its time is up)."""

    def __init__(
        self,
        sio: socketio.AsyncServer,
        unconnected: Unconnected,
        spawn: Callable[[Coroutine[Any, Any, None]], object],
    ) -> None:
        self.sio = sio
        self.unconnected = unconnected
        self._spawn = spawn
        self._sessions: dict[str, tuple[str, asyncio.TimerHandle]] = {}
        self._eio_opened = sio._handle_eio_connect
        self._eio_closed = sio._handle_eio_disconnect
        sio.eio.on("connect", self._eio_connect)
        sio.eio.on("disconnect", self._eio_disconnect)

    async def _eio_connect(self, eio_sid: str, environ: dict[str, Any]) -> Any:
        """A new Engine.IO session (python-socketio's own handler, after): a long-polling one is
        `Unconnected` until it connects at Socket.IO, closed if its time runs out. Its place was
        taken by HandshakeGate, which refused it (429, Retry-After) when its address had too
        many; served without the gate, it is taken here (refused: engineio answers 401 with the
        message). (A websocket's are HandshakeGate's.)"""
        scope = environ.get("asgi.scope") or {}
        if scope.get("type") == "http":
            address = client_address(scope)
            if scope.pop(POLLING_PLACE, None) is None and not self.unconnected.admit(address):
                return {"message": CROWDED}
            loop = asyncio.get_running_loop()
            timer = loop.call_later(self.unconnected.seconds, self._late, eio_sid)
            self._sessions[eio_sid] = (address, timer)
        await self._eio_opened(eio_sid, environ)
        return None

    async def _eio_disconnect(self, eio_sid: str, reason: Any) -> None:
        self._settle(eio_sid)
        await self._eio_closed(eio_sid, reason)

    def connected(self, sid: str) -> None:
        """A connection (Socket.IO sid) connected: if it is a long-polling session, no longer
        `Unconnected`."""
        if self._sessions:
            self._settle(self.sio.manager.eio_sid_from_sid(sid, "/"))

    def close(self) -> None:
        """The app is stopping: no session is closed late from now."""
        for _, timer in self._sessions.values():
            timer.cancel()

    def _settle(self, eio_sid: str | None) -> None:
        """A long-polling session connected at Socket.IO, or ended: no longer `Unconnected`."""
        entry = self._sessions.pop(eio_sid, None) if eio_sid is not None else None
        if entry is not None:
            address, timer = entry
            timer.cancel()
            self.unconnected.release(address)

    def _late(self, eio_sid: str) -> None:
        """A long-polling session's time to connect is up: closed, unless its CONNECT is being
        answered (then looked at again in a second)."""
        entry = self._sessions.get(eio_sid)
        if entry is None:
            return
        if self.sio.manager.sid_from_eio_sid(eio_sid, "/") is not None:
            timer = asyncio.get_running_loop().call_later(1.0, self._late, eio_sid)
            self._sessions[eio_sid] = (entry[0], timer)
            return
        self._settle(eio_sid)
        metrics.live_unconnected("late")
        self._spawn(self._close_late(eio_sid))

    async def _close_late(self, eio_sid: str) -> None:
        """Close a long-polling session now: its CLOSE packet goes to a poll waiting (engineio's
        own `disconnect` would wait for a poll to take it), its sid is unknown from now, and
        every websocket that upgraded it (or tries to) ends (HandshakeGate's END_UPGRADE)."""
        engine = self.sio.eio
        socket = engine.sockets.get(eio_sid)
        if socket is not None:
            await socket.close(wait=False, abort=False, reason=engine.reason.SERVER_DISCONNECT)
            engine.sockets.pop(eio_sid, None)
            for end in getattr(socket, "end_upgrades", None) or ():
                end()  # a websocket it upgraded to, or tried to: ended now, not when it speaks
