"""An event's frame written at once to each recipient's websocket by the delivery task
(bff/live/patches/wire.py's `Wire` and `write_now`), through the real Hypercorn: only when
nothing of the connection's own is ahead of it, so each connection keeps its order, and never
to a client that stops reading (its events wait in its queue, behind Hypercorn's drain)."""

from __future__ import annotations

import asyncio
import gc
import json
import types
import weakref
from pathlib import Path
from typing import Any

import aiohttp
import engineio.async_drivers.asgi
import engineio.packet
import pytest

from bff import collector, metrics
from bff.live import delivery
from bff.live.events import user_room
from bff.live.patches import engineio_sockets, wire
from bff.services import app_services
from bff.users.models import Role
from tests.conftest import make_settings
from tests.factories import make_staff
from tests.live.conftest import FREED_AT_THEIR_END, Listener, LiveServer, run_live
from tests.live.raw_client import BIG, RawWebsocket, slow_and_other, stall

# Events written straight to each websocket through its Wire (the stock libraries queue them).
DIRECT = pytest.mark.live_patch("websocket-wire", why="events written straight to each websocket")


def _deliveries(path: str) -> float:
    return float(metrics.LIVE_DELIVERIES.labels(path)._value.get())


def _count_writes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each Wire.write's answer, in order."""
    answers: list[bool] = []
    write = wire.Wire.write

    def counted(wire: wire.Wire, frames: bytes) -> bool:
        answers.append(write(wire, frames))
        return answers[-1]

    monkeypatch.setattr(wire.Wire, "write", counted)
    return answers


@DIRECT
async def test_an_event_is_written_to_each_websocket_at_once(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    staff = [await make_staff(live.settings, Role.NURSE) for _ in range(3)]
    ears = [await live.listener(member.token, f"nurse-{i}") for i, member in enumerate(staff)]
    engine = app_services(live.app).live.sio.eio
    assert all(isinstance(s.wire, wire.Wire) for s in engine.sockets.values())
    queued: list[Any] = []
    for eio_socket in engine.sockets.values():
        monkeypatch.setattr(eio_socket.queue, "put_nowait", queued.append)  # nothing queued
    writes = _count_writes(monkeypatch)
    direct, through_queue = _deliveries("direct"), _deliveries("queued")
    hub = app_services(live.app).live
    await hub.send("test:wide", {"n": 1, "name": "Zoë"}, [user_room(m.user.id) for m in staff])
    for ear in ears:
        assert await ear.wait_for("test:wide") == {"n": 1, "name": "Zoë"}
    assert writes == [True, True, True]
    assert queued == []
    # What an operator sees (bff_live_deliveries_total).
    assert (_deliveries("direct") - direct, _deliveries("queued") - through_queue) == (3, 0)


@DIRECT
async def test_an_event_waits_behind_what_is_queued_for_the_connection(
    live: LiveServer,
) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    ear = await live.listener(nurse.token)
    hub = app_services(live.app).live
    manager = hub.sio.manager
    (eio_socket,) = hub.sio.eio.sockets.values()
    first = delivery._packets(manager, "test:first", {}, "/")
    second = wire.websocket_frames(delivery._packets(manager, "test:second", {}, "/"))
    assert wire.write_now(eio_socket, second) is True  # nothing ahead: written at once
    await ear.wait_for("test:second")
    eio_socket.queue.put_nowait(first[0])  # for its writer, which has not run yet
    assert wire.write_now(eio_socket, second) is False  # must not overtake it
    await hub.send("test:second", {}, [user_room(nurse.user.id)])
    await ear.wait_for("test:second", since=1)
    assert ear.names() == ["test:second", "test:first", "test:second"]


@DIRECT
async def test_an_event_waits_for_a_packet_its_writer_has_taken_and_not_written(
    live: LiveServer,
) -> None:
    """The writer has taken a packet and waits for the connection's send lock (held by
    Hypercorn answering the client's ping): the lock freed, the writer woken but not yet run,
    an event delivered at that moment still comes after the packet."""
    nurse = await make_staff(live.settings, Role.NURSE)
    ear = await live.listener(nurse.token)
    hub = app_services(live.app).live
    manager = hub.sio.manager
    ((eio_sid, eio_socket),) = hub.sio.eio.sockets.items()
    lock = eio_socket.wire._tcp.send_lock
    await lock.acquire()  # Hypercorn's own write (a pong) in progress
    first = delivery._packets(manager, "test:first", {}, "/")
    await hub.sio.eio.send_packet(eio_sid, first[0])
    for _ in range(100):  # the writer takes it and waits for the lock
        if eio_socket.queue.empty():
            break
        await asyncio.sleep(0.01)
    assert eio_socket.queue.empty() and lock.locked()
    done = delivery.deliver(manager, "test:second", {}, "/", user_room(nurse.user.id))
    lock.release()  # in the same step: the writer is woken, not yet run
    assert await done is True
    await ear.wait_for("test:second")
    assert ear.names() == ["test:first", "test:second"]


@DIRECT
async def test_events_and_binary_attachments_go_at_once_behind_a_trusted_proxy(
    database_url: str, run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Production runs behind nginx (BFF_TRUSTED_PROXY_HOPS=1): the fast path holds there, and
    for an event with binary attachments (several frames) and non-ASCII text."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", trusted_proxy_hops=1
    )
    async for live in run_live(settings):
        nurse = await make_staff(live.settings, Role.NURSE)
        ear = await live.listener(nurse.token)
        writes = _count_writes(monkeypatch)
        hub = app_services(live.app).live
        payload = {"blob": b"\x00\xff" * 40_000, "name": "Zoë"}
        await hub.send("test:binary", payload, [user_room(nurse.user.id)])
        assert await ear.wait_for("test:binary") == payload
        assert writes == [True]


async def test_a_second_websocket_for_a_polling_connection_gets_none_of_its_events(
    live: LiveServer,
) -> None:
    """A long-polling client upgrading: a second websocket naming the same Engine.IO session,
    opened before the upgrade ends, must not become where its events are written."""
    nurse = await make_staff(live.settings, Role.NURSE)
    polling = Listener("polling")
    live.listeners.append(polling)
    await polling.client.connect(
        live.base, auth={"token": nurse.token}, transports=["polling"], wait_timeout=5
    )
    sid = polling.client.eio.sid
    first = await RawWebsocket.open(live, f"&sid={sid}")
    first.send("2probe")
    assert await first.messages(1) == ["3probe"]
    second = await RawWebsocket.open(live, f"&sid={sid}")
    try:
        first.send("5")  # the upgrade, on the first
        hub = app_services(live.app).live
        eio_socket = hub.sio.eio.sockets[sid]
        for _ in range(100):
            if eio_socket.upgraded:
                break
            await asyncio.sleep(0.01)
        assert eio_socket.upgraded
        await hub.send("test:secret", {"patient": 1}, [user_room(nurse.user.id)])
        (text,) = await first.messages(1)
        while not text.startswith("42"):  # Engine.IO's own (a noop) may come first
            (text,) = await first.messages(1)
        assert text == '42["test:secret",{"patient":1}]'
        with pytest.raises(TimeoutError):  # nothing for the second
            async with asyncio.timeout(0.5):
                await second.messages(1)
    finally:
        first.close()
        second.close()


@DIRECT
async def test_a_client_that_stops_reading_gets_its_events_through_its_queue(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its events are not piled up in the server's socket buffer (Hypercorn's drain holds its
    writer back), the others' still go out at once, and it gets everything in order when it
    reads again."""
    slow, ear, rooms = await slow_and_other(live)
    hub = app_services(live.app).live
    try:
        slow_socket = hub.sio.eio.sockets[slow.sid]
        writes = _count_writes(monkeypatch)
        sent = await stall(live, slow, ear, rooms)
        assert slow_socket.queue.qsize() > 2
        # Hypercorn's drain limit and a packet: not all of them.
        assert slow_socket.wire.buffered() <= 3 * (len(BIG) + 1024)
        written = writes.count(True)
        await hub.send("test:after", {"n": sent + 1}, rooms)
        await ear.wait_for("test:after")
        assert writes.count(True) == written + 1  # the other connection, at once
        numbers: list[int] = []
        while not numbers or numbers[-1] != sent + 1:
            for text in await slow.messages(1):
                if text.startswith("42"):
                    numbers.append(json.loads(text[2:])[1]["n"])
        assert numbers == list(range(1, sent + 2))  # all of them, in order
    finally:
        slow.close()


def test_frames_are_a_servers_websocket_frames() -> None:
    """Unmasked, unfragmented, a text frame for a text packet and a binary one for bytes."""
    text = engineio.packet.Packet(engineio.packet.MESSAGE, '2["a",{"b":"ü"}]')
    binary = engineio.packet.Packet(engineio.packet.MESSAGE, b"\x00\x01")
    payload = '42["a",{"b":"ü"}]'.encode()
    assert wire.websocket_frames([text]) == bytes([0x81, len(payload)]) + payload
    assert wire.websocket_frames([text, binary])[-4:] == bytes([0x82, 2, 0, 1])
    long = engineio.packet.Packet(engineio.packet.MESSAGE, "y" * 300)
    assert wire.websocket_frames([long])[:4] == bytes([0x81, 126, 1, 45])


SERVER_MODULES = ("engineio", "socketio", "hypercorn", "wsproto", "bff")


def _module_of(thing: Any) -> str:
    """The module a function, class or instance comes from ("" for plain containers)."""
    if isinstance(thing, types.FrameType):
        return str(thing.f_globals.get("__name__", ""))
    if isinstance(thing, types.MethodType):
        thing = thing.__func__
    if isinstance(thing, type | types.FunctionType):
        return str(getattr(thing, "__module__", ""))
    if isinstance(thing, dict | list | tuple | set | types.CellType):
        return ""
    return str(type(thing).__module__)


@FREED_AT_THEIR_END
async def test_a_closed_connection_leaves_nothing_for_the_cycle_collector(
    live: LiveServer,
) -> None:
    """What a connection holds is freed as soon as it closes, by reference counting (the web
    app's websocket): anything left in a reference cycle waits for the garbage
    collector's full collection, which walks every live connection (about 0.85 s at 5,000,
    bff/collector.py). engineio ended each websocket by raising OSError (its traceback held
    the handler's frames), and made a class per request (a class is always in a cycle) whose
    methods held the request's receive and HandshakeGate's state. Hypercorn's connection and
    asyncio's transport end in two cycles of their own, and the scope, its Wire and the
    websocket's stream made a third; Engine.IO's socket, which its ping task holds for up to
    a ping interval after the close, held all of that through its Wire (so a check within
    that interval found nothing in cycles, and one after it found every connection's 35-60
    objects). So: with the collector off, every connection's Hypercorn state is gone once the
    connections have closed, and a collection then finds nothing of the server's."""
    nurse = await make_staff(live.settings, Role.NURSE)
    tabs = [await live.listener(nurse.token, f"tab-{i}") for i in range(10)]
    sockets = app_services(live.app).live.sio.eio.sockets
    assert len(sockets) == 10
    # Engine.IO's sockets, held as their ping tasks hold them for a while after the close
    engine_sockets = list(sockets.values())
    connections = [weakref.ref(socket.wire._tcp) for socket in engine_sockets]
    assert all(connection() is not None for connection in connections)
    gc.collect()
    gc.disable()
    try:
        for tab in tabs:
            await tab.close()
        async with asyncio.timeout(10):
            while sockets:  # noqa: ASYNC110 - Engine.IO's sockets, no event
                await asyncio.sleep(0.02)
        for _ in range(200):  # Hypercorn's last steps: each connection freed as it ends
            if all(connection() is None for connection in connections):
                break
            await asyncio.sleep(0.05)
        held = [connection for connection in connections if connection() is not None]
        assert held == [], f"{len(held)} of 10 closed connections still held or in cycles"
        wire = engine_sockets[0].wire
        assert wire.write(b"late") is False  # a Wire let go of writes nothing, cuts nothing
        wire.cut()
        assert wire.buffered() == 0
        await asyncio.sleep(0.2)  # the handlers' last steps
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            left = list(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    finally:
        gc.enable()
    assert not [o for o in left if isinstance(o, OSError)]
    server_side = [o for o in left if _module_of(o).partition(".")[0] in SERVER_MODULES]
    assert server_side == []


def _receiving(events: list[dict[str, Any]]) -> Any:
    async def receive() -> dict[str, Any]:
        return events.pop(0)

    return receive


async def test_a_request_is_translated_as_engineio_does() -> None:
    """`_translate_request` gives engineio the environ its own gives, headers joined and
    undecodable ones skipped, and the body read from the request's events."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/socket.io/",
        "query_string": b"EIO=4&transport=polling",
        "headers": [
            (b"content-type", b"text/plain"),
            (b"content-length", b"6"),
            (b"x-forwarded-proto", b"https"),
            (b"accept", b"a"),
            (b"accept", b"b"),
            (b"x-bad", b"\xff"),
        ],
    }
    first = [{"type": "http.request", "body": b"abc", "more_body": True}]
    rest = [{"type": "http.request", "body": b"def", "more_body": False}]
    ours = await engineio_sockets.translate_request(scope, _receiving(first + rest), None)
    original = engineio.async_drivers.asgi.translate_request
    theirs = await original(scope, _receiving(list(first) + list(rest)), None)
    ours_body, theirs_body = ours.pop("wsgi.input"), theirs.pop("wsgi.input")
    ours.pop("asgi.receive"), theirs.pop("asgi.receive")
    assert ours == theirs
    assert ours["HTTP_ACCEPT"] == "a,b" and "HTTP_X_BAD" not in ours
    assert await ours_body.read(4) == await theirs_body.read(4) == b"abcd"
    assert await ours_body.read() == await theirs_body.read() == b"ef"
    assert await engineio_sockets.translate_request(scope, _receiving([{"type": "x"}]), None) == {}


async def test_a_websocket_is_translated_and_has_no_body() -> None:
    scope = {"type": "websocket", "path": "/socket.io/", "query_string": b"", "headers": []}
    environ = await engineio_sockets.translate_request(
        scope, _receiving([{"type": "websocket.connect"}]), None
    )
    assert environ["REQUEST_METHOD"] == "GET" and environ["QUERY_STRING"] == ""
    assert environ["asgi.scope"] is scope
    assert await environ["wsgi.input"].read() == b""


async def _polling_connection(base: str, token: str) -> tuple[aiohttp.ClientSession, str]:
    """A Socket.IO connection over Engine.IO long-polling (no websocket), connected."""
    http = aiohttp.ClientSession()
    url = f"{base}/socket.io/?EIO=4&transport=polling"
    async with http.get(url) as response:
        opened = json.loads((await response.text())[1:])
    url += f"&sid={opened['sid']}"
    async with http.post(url, data="40" + json.dumps({"token": token})) as response:
        assert response.status == 200
    async with http.get(url) as response:
        assert (await response.text()).startswith("40")  # Socket.IO's connect answered
    return http, url


@pytest.mark.live_patch(
    "websocket-wire", why="a websocket with a Wire is one whose end the patches free at once"
)
async def test_only_a_connection_that_leaves_cycles_brings_the_full_collection_forward(
    live: LiveServer,
) -> None:
    """A websocket's end leaves nothing for the cycle collector, so it does not count towards
    CLOSED_LIMIT (a full collection then frees nothing and stops the worker for most of a
    second at 5,000 connections); a long-polling connection's still does (Hypercorn's HTTP
    connections end in cycles)."""
    nurse = await make_staff(live.settings, Role.NURSE)
    sockets = app_services(live.app).live.sio.eio.sockets
    tab = await live.listener(nurse.token, "websocket")
    before = collector._closed
    await tab.close()
    async with asyncio.timeout(10):
        while sockets:  # noqa: ASYNC110 - Engine.IO's sockets, no event
            await asyncio.sleep(0.02)
    assert collector._closed == before
    http, url = await _polling_connection(live.base, nurse.token)
    try:
        assert len(sockets) == 1
        async with http.post(url, data="1") as response:  # Engine.IO's close
            assert response.status == 200
        async with asyncio.timeout(10):
            while collector._closed == before:  # noqa: ASYNC110 - a count, no event
                await asyncio.sleep(0.02)
    finally:
        await http.close()
    assert collector._closed == before + 1
