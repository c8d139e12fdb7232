"""How live events travel between processes: python-socketio's managers, one process
(`LocalManager`, rooms in memory) or several through Redis (`RedisManager`).

The Redis link: it is "up" once this process is subscribed, and "down" from the moment the
subscription fails or stops answering pings (the manager's own listen loop, retrying every
half second, never python-socketio's growing back-off). A sign-out's `fence` waits until every
other process has heard it. After `session:revoked` reaches a room, each process disconnects
its own members of it. The Socket.IO server and what it does with connections:
bff/live/server.py.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import engineio
import socketio

from bff import metrics
from bff.auth.session_cache import SessionCache
from bff.live.events import LIVE_RESYNC, SESSION_REVOKED
from bff.live.transport import cut_if_stalled, websocket_frames, write_now

log = logging.getLogger(__name__)

RECONNECT_SECONDS = 0.5  # between attempts to subscribe again while the Redis link is down
PING_IDLE_SECONDS = 1.0  # a quiet subscription is pinged after this long
PING_ANSWER_SECONDS = 2.0  # a ping unanswered this long means the link is down
CLOSE_SECONDS = 2.0  # the app's stop waits this long for the listener, and for each connection


DELIVERY_SLICE = 32  # packets queued (over one or several events) before the loop takes a turn
DELIVERIES_WAITING = 1000  # events a process holds; beyond, new ones are dropped (never sign-outs)


class LiveEventDropped(Exception):
    """This process did not deliver an event (too many waiting, or the delivery failed, or the
    app stopping): already logged and counted."""


class _Delivery:
    """One event to deliver: the packets, who gets them (fixed when it was sent), and whether
    it ends their connections once they have it (session:revoked)."""

    __slots__ = ("done", "ends", "event", "namespace", "packets", "recipients", "sent")

    def __init__(
        self, event: str, packets: list[Any], namespace: str, recipients: list[tuple[Any, Any]]
    ) -> None:
        self.event = event
        self.packets = packets
        self.namespace = namespace
        self.recipients = recipients
        self.ends = event == SESSION_REVOKED
        loop = asyncio.get_running_loop()
        self.sent = loop.time()  # for bff_live_delivery_seconds
        # True once every recipient has it, False if it was not delivered.
        self.done: asyncio.Future[bool] = loop.create_future()


class _Deliveries:
    """The events a process delivers to its own connections, one after another, by one task.

    Packets are queued for their recipients DELIVERY_SLICE at a time, with a turn of the loop
    between two slices: a fan-out to 5,000 connections (most of a second of CPU), or a burst of
    small events, would otherwise run in one turn, and every request arriving meanwhile would
    wait for all of it. One task delivers events in the order they were sent, so each
    connection gets them in that order; who gets an event is fixed when it is sent (a
    connection that leaves meanwhile is skipped, one that arrives meanwhile does not get it),
    and after `session:revoked` the connections that got it are ended before any later event.
    One recipient that fails to take it does not stop the others.

    At most DELIVERIES_WAITING events wait: beyond that a new one is dropped (logged, counted
    as not delivered), except a sign-out, and once the queue is empty again every connection
    of this process gets `live:resync`, so clients refetch what they missed."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self._waiting: collections.deque[_Delivery] = collections.deque()
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._dropped = False  # since the last live:resync

    def put(self, delivery: _Delivery) -> None:
        """Queue `delivery` (or drop it, resolving its future with False)."""
        if self._closed:
            self._fail(delivery, "the app is stopping")
            return
        if len(self._waiting) >= DELIVERIES_WAITING and not delivery.ends:
            self._dropped = True
            self._fail(delivery, f"{DELIVERIES_WAITING} events wait")
            return
        self._waiting.append(delivery)
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._task is None or self._task.done():
            # A context of its own: not that of the request whose event started it.
            self._task = asyncio.get_running_loop().create_task(
                self._run(), context=contextvars.Context()
            )

    @staticmethod
    def _fail(delivery: _Delivery, why: str) -> None:
        log.warning("Live event %s dropped: %s", delivery.event, why)
        metrics.live_event(delivery.event, False)
        if not delivery.done.done():
            delivery.done.set_result(False)

    async def _run(self) -> None:
        assert self._wake is not None
        budget = DELIVERY_SLICE
        while True:
            if not self._waiting:
                if self._dropped:  # clients missed events: tell every one to refetch
                    self._dropped = False
                    self._waiting.append(_everyone(self.manager, LIVE_RESYNC))
                    continue
                self._wake.clear()
                await self._wake.wait()
                continue
            delivery = self._waiting.popleft()
            try:
                budget = await self._deliver(delivery, budget)
            except asyncio.CancelledError:
                self._waiting.appendleft(delivery)  # resolved by aclose
                raise
            except Exception:  # the next event must still go
                log.exception("Delivering live event %s failed", delivery.event)
                metrics.live_event(delivery.event, False)
                delivery.done.set_result(False)
            else:
                metrics.live_delivered(asyncio.get_running_loop().time() - delivery.sent)
                delivery.done.set_result(True)

    async def _deliver(self, delivery: _Delivery, budget: int) -> int:
        """Queue the packets for each recipient still connected; the budget of packets left
        before the next turn of the loop."""
        engine = self.manager.server.eio
        sockets = engine.sockets
        connected = self.manager.is_connected
        namespace = delivery.namespace
        frames = websocket_frames(delivery.packets)
        direct = queued = 0
        for sid, eio_sid in delivery.recipients:
            if budget <= 0:
                await asyncio.sleep(0)  # the loop's turn: requests, the connections' writers
                budget = DELIVERY_SLICE
            if not connected(sid, namespace):  # gone since it was sent
                continue
            budget -= 1
            socket = sockets.get(eio_sid)
            if socket is not None:
                if write_now(socket, frames):
                    direct += 1
                    continue
                if cut_if_stalled(socket):
                    continue
            queued += 1
            for packet in delivery.packets:
                try:
                    await engine.send_packet(eio_sid, packet)
                except Exception:  # the others still get it
                    log.debug(
                        "Live event %s not queued for one connection", delivery.event, exc_info=True
                    )
        metrics.live_deliveries(direct, queued)
        if delivery.ends:
            for sid, _ in delivery.recipients:
                if connected(sid, namespace):
                    await self.manager.server.disconnect(
                        sid, namespace=namespace, ignore_queue=True
                    )
        return budget

    async def aclose(self) -> None:
        """Stop delivering (the app is stopping): what still waits is not delivered."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        while self._waiting:
            self._fail(self._waiting.popleft(), "the app is stopping")


def _everyone(manager: Any, event: str) -> _Delivery:
    """`event` (without arguments) for every connection of this process now."""
    everyone = list(manager.get_participants("/", None)) if "/" in manager.rooms else []
    return _Delivery(event, _packets(manager, event, {}, "/"), "/", everyone)


def _packets(manager: Any, event: str, data: Any, namespace: str) -> list[Any]:
    """The Engine.IO packets of a Socket.IO event, encoded once for all its recipients."""
    # A tuple is several arguments, as python-socketio has it.
    arguments = list(data) if isinstance(data, tuple) else [] if data is None else [data]
    encoded = manager.server.packet_class(
        socketio.packet.EVENT, namespace=namespace, data=[event, *arguments]
    ).encode()
    return [
        engineio.packet.Packet(engineio.packet.MESSAGE, part)
        for part in (encoded if isinstance(encoded, list) else [encoded])
    ]


def deliver(
    manager: Any,
    event: str,
    data: Any,
    namespace: str | None,
    room: Any,
    skip_sid: Any = None,
) -> asyncio.Future[bool]:
    """python-socketio's AsyncManager.emit for an event without a callback, queued for this
    process's delivery task (`_Deliveries`): the same packet, encoded once, for every local
    member of `room` now, without the task per recipient python-socketio creates. Returns a
    future: True once every recipient has it (and, for session:revoked, their connections have
    ended), False if it was not delivered (logged and counted)."""
    namespace = namespace or "/"
    skip = skip_sid if isinstance(skip_sid, list) else [skip_sid]
    recipients = (
        [pair for pair in manager.get_participants(namespace, room) if pair[0] not in skip]
        if namespace in manager.rooms
        else []
    )
    if not recipients:  # nobody in this process: nothing to encode
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        done.set_result(True)
        return done
    delivery = _Delivery(event, _packets(manager, event, data, namespace), namespace, recipients)
    manager.deliveries.put(delivery)
    return delivery.done


class _Delivering:
    """Mixed into both managers: this process's delivery task, and (for an emit with a
    callback, python-socketio's own) after session:revoked has reached a room, disconnecting
    the room's local members; and each connection's rooms kept by connection.

    python-socketio finds the rooms of a connection that leaves by looking through every room
    of the namespace, and each connection has a room of its own (its sid) besides its user's
    and session's: a disconnect costs time in proportion to the connections (5,000 tabs
    leaving at once, side by side: 1.88 ms of the worker's CPU per connection, 1.25 ms with
    this and the other changes of that run, docs/capacity.md). Here a disconnect looks only
    at its own rooms."""

    _deliveries: _Deliveries | None = None

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

    @property
    def deliveries(self) -> _Deliveries:
        if self._deliveries is None:
            self._deliveries = _Deliveries(self)
        return self._deliveries

    async def _disconnect_room(self, room: Any, namespace: str) -> None:
        if room is None:
            return
        manager: Any = self  # mixed into a socketio manager
        for sid, _ in list(manager.get_participants(namespace, room)):
            await manager.server.disconnect(sid, namespace=namespace, ignore_queue=True)


class LocalManager(_Delivering, socketio.AsyncManager):  # type: ignore[misc]
    """One process: rooms in memory. An emit returns once every recipient has the event."""

    async def emit(self, event: str, data: Any, namespace: str | None = None, **kwargs: Any) -> Any:
        room = kwargs.get("to") or kwargs.get("room")
        if kwargs.get("callback") is None:
            done = deliver(self, event, data, namespace, room, kwargs.get("skip_sid"))
            # A caller giving up does not cut the delivery short.
            if not await asyncio.shield(done):
                raise LiveEventDropped(event)
        else:
            await super().emit(event, data, namespace, **kwargs)
            if event == SESSION_REVOKED:
                await self._disconnect_room(room, namespace or "/")

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
