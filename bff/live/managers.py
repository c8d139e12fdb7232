"""How live events travel between processes: python-socketio's managers, one process
(`LocalManager`, rooms in memory) or several through Redis (`RedisManager`).

The Redis link: it is "up" once this process is subscribed, and "down" from the moment the
subscription fails or stops answering pings (the manager's own listen loop, retrying every
half second, never python-socketio's growing back-off). A sign-out's `fence` waits until every
other process has heard it. After `session:revoked` reaches a room, each process disconnects
its own members of it. The Socket.IO server and what it does with connections:
bff/live/server.py; how each process delivers events to its own connections:
bff/live/delivery.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import socketio

from bff.auth.session_cache import SessionCache
from bff.live.delivery import Deliveries, LiveEventDropped, deliver
from bff.live.events import SESSION_REVOKED
from bff.live.patches.rooms import RoomsByConnection

log = logging.getLogger(__name__)

RECONNECT_SECONDS = 0.5  # between attempts to subscribe again while the Redis link is down
PING_IDLE_SECONDS = 1.0  # a quiet subscription is pinged after this long
PING_ANSWER_SECONDS = 2.0  # a ping unanswered this long means the link is down
CLOSE_SECONDS = 2.0  # the app's stop waits this long for the listener, and for each connection


class _Delivering:
    """Mixed into both managers: this process's delivery task (bff/live/delivery.py), and (for
    an emit with a callback, python-socketio's own) after session:revoked has reached a room,
    disconnecting the room's local members."""

    _deliveries: Deliveries | None = None

    @property
    def deliveries(self) -> Deliveries:
        if self._deliveries is None:
            self._deliveries = Deliveries(self)
        return self._deliveries

    async def _emit_here(self, event: str, data: Any, namespace: str | None, **kwargs: Any) -> None:
        """An emit to this process's own connections: queued for its delivery task, returning
        once every recipient has it (sliced, and a client that does not read cut at
        QUEUED_LIMIT, as any event). One with a callback is python-socketio's own."""
        room = kwargs.get("to") or kwargs.get("room")
        if kwargs.get("callback") is None:
            done = deliver(self, event, data, namespace, room, kwargs.get("skip_sid"))
            # A caller giving up does not cut the delivery short.
            if not await asyncio.shield(done):
                raise LiveEventDropped(event)
        else:
            await socketio.AsyncManager.emit(self, event, data, namespace, **kwargs)
            if event == SESSION_REVOKED:
                await self._disconnect_room(room, namespace or "/")

    async def _disconnect_room(self, room: Any, namespace: str) -> None:
        if room is None:
            return
        manager: Any = self  # mixed into a socketio manager
        for sid, _ in list(manager.get_participants(namespace, room)):
            await manager.server.disconnect(sid, namespace=namespace, ignore_queue=True)


class LocalManager(_Delivering, socketio.AsyncManager):  # type: ignore[misc]
    """One process: rooms in memory. An emit returns once every recipient has the event."""

    async def emit(self, event: str, data: Any, namespace: str | None = None, **kwargs: Any) -> Any:
        await self._emit_here(event, data, namespace, **kwargs)

    async def aclose(self) -> None:
        """Stop delivering (when the app stops)."""
        await self.deliveries.aclose()


class _Fence:
    """One `fence` waiting for the other processes' confirmations."""

    def __init__(self) -> None:
        self.confirmed = 0
        self.expected: int | None = None  # known once the publish has answered
        self.done = asyncio.Event()

    def check(self) -> None:
        if self.expected is not None and self.confirmed >= self.expected:
            self.done.set()


class RedisManager(_Delivering, socketio.AsyncRedisManager):  # type: ignore[misc]
    """Several processes: every event goes through Redis; each process handles its own clients.

    Listening replaces python-socketio's loop, which retries after 1, 2, 4, 8, 16... seconds
    and never says whether it is subscribed: this one retries every RECONNECT_SECONDS, pings a
    quiet subscription (a connection that stops answering is down, not just quiet), and calls
    `on_link(True)` once Redis confirms the subscription, `on_link(False)` when it is lost.

    `fence()` waits until every subscribed process has handled everything this one published
    before it: a fence message goes out on a second channel, each listener (this one too)
    answers it once it reaches it (Redis delivers a connection's messages in order, and a
    listener handles each message before reading the next), and PUBLISH says how many listen.
    """

    session_cache: SessionCache | None = None
    on_link: Callable[[bool], Awaitable[None]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fences: dict[str, _Fence] = {}  # this process's fences waiting, by key
        self._stopping = False  # aclose: the listening loop ends, whatever it was doing

    async def emit(self, event: str, data: Any, namespace: str | None = None, **kwargs: Any) -> Any:
        """Through Redis to every process; with `ignore_queue` (a resync after the link came
        back, a restart's live:reconnect) to this process's own connections only, by its
        delivery task (python-socketio's would send it with a task per connection, past the
        QUEUED_LIMIT cut)."""
        if kwargs.pop("ignore_queue", False):
            await self._emit_here(event, data, namespace, **kwargs)
        else:
            await super().emit(event, data, namespace, **kwargs)

    @property
    def fence_channel(self) -> str:
        """The channel of fences and their confirmations."""
        return f"{self.channel}:fence"

    async def fence(self, seconds: float) -> bool:
        """Wait (at most `seconds`) until every process listening has handled what this one
        published so far; whether all of them confirmed in time."""
        key = secrets.token_hex(8)
        waiter = self._fences[key] = _Fence()
        try:
            async with asyncio.timeout(seconds):
                waiter.expected = int(await self.redis.publish(self.fence_channel, f"F:{key}"))
                waiter.check()
                await waiter.done.wait()
        except Exception as exc:  # noqa: BLE001 - Redis failing: the session check catches up
            log.warning(
                "Not every process confirmed a sign-out (%d of %s): %s",
                waiter.confirmed,
                waiter.expected,
                type(exc).__name__,
            )
            return False
        finally:
            self._fences.pop(key, None)
        return True

    async def _on_fence(self, data: bytes) -> None:
        """A fence message: confirm one (ours or another process's), or count a confirmation."""
        kind, _, key = data.decode(errors="replace").partition(":")
        if kind == "F":
            # Everything published before it has been handled: this loop handles each message
            # before it reads the next.
            await self.redis.publish(self.fence_channel, f"A:{key}")
        elif kind == "A" and (waiter := self._fences.get(key)) is not None:
            waiter.confirmed += 1
            waiter.check()

    async def _redis_listen_with_retries(self) -> AsyncIterator[dict[str, Any]]:
        channel = self.channel.encode()
        fences = self.fence_channel.encode()
        while True:
            pubsub = None
            try:
                if self.redis is None:
                    self._redis_connect()
                # Our own subscription (the publisher may replace self.redis when it fails).
                pubsub = self.redis.pubsub()
                await pubsub.subscribe(self.channel, self.fence_channel)
                heard = pinged = time.monotonic()
                while True:
                    message = await pubsub.get_message(timeout=PING_IDLE_SECONDS)
                    now = time.monotonic()
                    if message is None:
                        if pinged <= heard and now - heard >= PING_IDLE_SECONDS:
                            await pubsub.ping()
                            pinged = now
                        elif pinged > heard and now - pinged >= PING_ANSWER_SECONDS:
                            raise ConnectionError("Redis did not answer a ping")
                        continue
                    heard = now
                    if message["type"] == "subscribe" and message["channel"] == fences:
                        await self._link(True)  # both channels: the fence's comes second
                    elif message["type"] == "message" and message["channel"] == fences:
                        await self._on_fence(message["data"])
                    elif message["type"] == "message" and message["channel"] == channel:
                        yield message
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - any failure: the link is down, retry
                if self._stopping:  # a cancellation the Redis client turned into a failure
                    return
                await self._link(False)
                await asyncio.sleep(RECONNECT_SECONDS)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()

    async def _link(self, up: bool) -> None:
        if self.on_link is None:
            return
        try:
            await self.on_link(up)
        except Exception:
            log.exception("Handling the Redis link %s failed", "coming up" if up else "going down")

    async def _handle_emit(self, message: dict[str, Any]) -> None:
        if self.session_cache is not None:  # a change made in any process, this one included
            data = message.get("data")  # the emitted arguments, as a list
            payload = data[0] if isinstance(data, list) and data else None
            self.session_cache.forget_for_event(
                message.get("event", ""), payload, message.get("room")
            )
        if message.get("callback") is None and not message.get("binary"):
            data = message["data"]  # the arguments, as python-socketio's _handle_emit reads them
            if isinstance(data, list):
                data = data[0] if len(data) == 1 else tuple(data)
            # Queued, not waited for: this loop goes on reading (fences, other processes'
            # sign-outs for the session cache) while a long fan-out is delivered.
            deliver(
                self,
                message["event"],
                data,
                message.get("namespace"),
                message.get("room"),
                message.get("skip_sid"),
            )
        else:
            await super()._handle_emit(message)
            if message.get("event") == SESSION_REVOKED:
                await self._disconnect_room(message.get("room"), message.get("namespace") or "/")

    async def aclose(self) -> None:
        """Stop listening and delivering, and close the Redis connections (when the app
        stops)."""
        self._stopping = True
        await self.deliveries.aclose()
        listener = getattr(self, "thread", None)
        if isinstance(listener, asyncio.Task):
            listener.cancel()
            # Waited for at most CLOSE_SECONDS, and never by awaiting it: a listener that took
            # its cancellation for a lost link (a Redis client may turn it into an error) held
            # the app's stop for good, the stop's own timeout swallowed with it.
            await asyncio.wait({listener}, timeout=CLOSE_SECONDS)
            if not listener.done():
                log.warning("Stopping: the Redis listener did not end within %g s", CLOSE_SECONDS)
            elif not listener.cancelled():
                listener.exception()  # retrieved: how it ended does not matter now
        for connection in (self.pubsub, self.redis):
            if connection is not None:
                with contextlib.suppress(Exception):  # TimeoutError too: closing, not waiting
                    async with asyncio.timeout(CLOSE_SECONDS):
                        await connection.aclose()


class RoomsKeptLocalManager(RoomsByConnection, LocalManager):
    """`LocalManager` with each connection's rooms kept by connection (the live tuning's
    rooms-by-connection patch, bff/live/patches/rooms.py)."""


class RoomsKeptRedisManager(RoomsByConnection, RedisManager):
    """`RedisManager` with each connection's rooms kept by connection (the live tuning's
    rooms-by-connection patch, bff/live/patches/rooms.py)."""
