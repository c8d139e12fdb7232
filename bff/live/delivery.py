"""How one process delivers live events to its own connections: one task, in the order they
were sent, to the recipients they had when sent, a slice of packets at a turn of the loop, each
event's frame written at once to every idle websocket (bff/live/patches/wire.py) or queued
through Engine.IO, and a client that leaves QUEUED_LIMIT packets unread cut (`cut_stalled`,
with the live patches on or off). Used by both managers (bff/live/managers.py) and by
bff/live/server.py for a connection's end (`session:revoked`, then the close).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import logging
from typing import Any

import engineio
import socketio

from bff import metrics
from bff.live.events import LIVE_RESYNC, SESSION_REVOKED
from bff.live.patches import wire
from bff.live.patches.wire import websocket_frames, write_now

log = logging.getLogger(__name__)

DELIVERY_SLICE = 32  # packets queued (over one or several events) before the loop takes a turn
DELIVERIES_WAITING = 1000  # events a process holds; beyond, new ones are dropped (never sign-outs)
# Packets a connection's Engine.IO queue may hold for a client that does not read them (its
# writer held back by Hypercorn's drain, or a long-polling client that stops polling); at this
# many the connection is cut (`cut_stalled`; its client, if it is still there, reconnects and
# refetches). engineio's queue has no limit of its own: a tab that stopped reading, or a client
# that answers pings and never reads, would have the server keep every event for it.
QUEUED_LIMIT = 1000


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


class Deliveries:
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
                if getattr(socket, CUT, False):  # cut, its connection not torn down yet
                    continue
                if write_now(socket, frames):
                    direct += 1
                    continue
                if socket.queue.qsize() >= QUEUED_LIMIT:
                    await cut_stalled(engine, eio_sid, socket)
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


# Set on an engineio socket cut_stalled has cut (a Wire's connection is torn down a moment later).
CUT = "bff_cut"


async def cut_stalled(engine: Any, eio_sid: str, socket: Any) -> None:
    """End the connection of a client that has left QUEUED_LIMIT packets unread, keeping none
    of them. With a Wire (the websocket-wire patch) its TCP connection is aborted at once.
    Without (the stock libraries, or a long-polling client) it is ended through engineio's own
    socket: its queue emptied, the socket closed (Socket.IO's disconnect runs: its rooms and
    session let go, nothing more queued for it) and its writer told to end, which it does once
    the packet it is writing has gone (a websocket's client reading again gets a close frame,
    a long-polling client's next poll a 400). Its TCP connection then costs what an idle one
    does until its client reads again or goes (at most Hypercorn's drain limit, 64 KB, waits in
    its socket's buffer)."""
    log.warning("A live connection left %d events unread: it is closed", QUEUED_LIMIT)
    setattr(socket, CUT, True)  # passed by from now on: cut once, however many events follow
    queue = socket.queue
    while True:
        try:
            queue.get_nowait()
        except asyncio.QueueEmpty:
            break
        queue.task_done()
    if wire.cut(socket):
        return
    engine.sockets.pop(eio_sid, None)
    with contextlib.suppress(Exception):  # the client may be gone already
        await socket.close(wait=False, abort=True, reason=engine.reason.SERVER_DISCONNECT)
    queue.put_nowait(None)  # its writer (or a waiting poll) ends


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
    process's delivery task (`Deliveries`): the same packet, encoded once, for every local
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
