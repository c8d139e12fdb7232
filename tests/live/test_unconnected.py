"""A live connection that never signs in costs the server a file descriptor and ~40 KB for as
long as it answers pings: it is closed BFF_LIVE_CONNECT_SECONDS after it opened, and each
process keeps at most BFF_LIVE_UNCONNECTED_PER_ADDRESS of them per client address
(bff/live/unconnected.py's `Unconnected`, counted by HandshakeGate for websockets and by
bff/live/polling.py for long-polling). Raw clients speaking Engine.IO by hand, as the review's
did, and real Socket.IO clients, through a real server behind a trusted proxy hop (the address
is the one X-Forwarded-For gives, as for the throttles)."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import pytest

from bff.live import transport, turns, unconnected
from bff.services import app_services
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings
from tests.factories import make_staff
from tests.live.conftest import FREED_AT_THEIR_END, Listener, LiveServer, marker, run_live
from tests.live.test_wire import SERVER_MODULES, _module_of

SECONDS = 1.0  # BFF_LIVE_CONNECT_SECONDS here
PER_ADDRESS = 3  # BFF_LIVE_UNCONNECTED_PER_ADDRESS here
ATTACKER = "203.0.113.7"
WARD = "198.51.100.20"  # another address: a hospital's


@pytest.fixture
async def live(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[LiveServer]:
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        trusted_proxy_hops=1,
        live_connect_seconds=SECONDS,
        live_unconnected_per_address=PER_ADDRESS,
    )
    async for server in run_live(settings):
        yield server


@pytest.fixture
def gates(monkeypatch: pytest.MonkeyPatch) -> list[turns.Gate]:
    """The HandshakeGate turns of the servers started from now on (one at a time)."""
    made: list[turns.Gate] = []
    init = turns.Gate.__init__

    def recorded(gate: turns.Gate, turns: int) -> None:
        init(gate, turns)
        made.append(gate)

    monkeypatch.setattr(turns.Gate, "__init__", recorded)
    monkeypatch.setattr(transport, "HANDSHAKES_AT_ONCE", 1)
    return made


def _url(live: LiveServer, transport_name: str = "websocket") -> str:
    scheme = live.base.replace("http", "ws") if transport_name == "websocket" else live.base
    return f"{scheme}/socket.io/?EIO=4&transport={transport_name}"


async def _opened(
    http: aiohttp.ClientSession, live: LiveServer, address: str
) -> aiohttp.ClientWebSocketResponse:
    """A websocket from `address` (through the proxy) that has had Engine.IO's open, and says
    nothing more."""
    ws = await http.ws_connect(_url(live), headers={"X-Forwarded-For": address})
    assert (await ws.receive_str()).startswith('0{"sid"')
    return ws


async def _closed_with(ws: aiohttp.ClientWebSocketResponse, talk: str | None = None) -> Any:
    """The close the server sends (failing if it never comes), talking meanwhile if told to."""
    async with asyncio.timeout(SECONDS + 10):  # its time, and then some on a loaded machine
        while True:
            if talk is not None:
                await ws.send_str(talk)
            try:
                message = await ws.receive(timeout=0.1 if talk is not None else None)
            except TimeoutError:
                continue
            if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                return message


def _unconnected(live: LiveServer, address: str) -> int:
    return app_services(live.app).live.unconnected.count(address)


async def _settled(live: LiveServer, address: str, count: int) -> None:
    async with asyncio.timeout(10):
        while _unconnected(live, address) != count:  # noqa: ASYNC110 - a count, no event
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("talk", [None, "3", "6"], ids=["silent", "pongs", "noops"])
async def test_a_websocket_that_never_connects_is_closed_after_its_time(
    live: LiveServer, talk: str | None
) -> None:
    """Silent, or answering like a live client (pongs, noops) without ever sending Socket.IO's
    CONNECT: closed with 1008 and why, its place in the address's count given back, and
    nothing of it left in Engine.IO."""
    sockets = app_services(live.app).live.sio.eio.sockets
    async with aiohttp.ClientSession() as http:
        ws = await _opened(http, live, ATTACKER)
        assert _unconnected(live, ATTACKER) == 1
        message = await _closed_with(ws, talk)
        assert ws.close_code == unconnected.CLOSE_UNCONNECTED, message
        assert message.extra == unconnected.LATE
    await _settled(live, ATTACKER, 0)
    async with asyncio.timeout(10):
        while sockets:  # noqa: ASYNC110 - Engine.IO's sockets, no event
            await asyncio.sleep(0.02)


async def test_a_refused_connect_leaves_the_connection_its_time_and_no_more(
    live: LiveServer,
) -> None:
    """Refused at Socket.IO (a made-up token), a connection is waiting on its client again:
    counted, and closed when the time it had since its open is up."""
    async with aiohttp.ClientSession() as http:
        ws = await _opened(http, live, ATTACKER)
        await ws.send_str("40" + json.dumps({"token": "made-up"}))
        assert (await ws.receive_str()).startswith("44")  # CONNECT_ERROR
        await _settled(live, ATTACKER, 1)
        await _closed_with(ws)
        assert ws.close_code == unconnected.CLOSE_UNCONNECTED
    await _settled(live, ATTACKER, 0)


async def test_one_more_unconnected_websocket_from_an_address_is_refused_not_another_address(
    live: LiveServer,
) -> None:
    """PER_ADDRESS websockets opened from one address and left unconnected: the next from that
    address is refused (429, a readable message, Retry-After) while a nurse elsewhere connects
    and hears events; once one of them has gone, that address may open one again."""
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    async with aiohttp.ClientSession() as http:
        held = [await _opened(http, live, ATTACKER) for _ in range(PER_ADDRESS)]
        assert _unconnected(live, ATTACKER) == PER_ADDRESS
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(_url(live), headers={"X-Forwarded-For": ATTACKER})
        assert refused.value.status == 429
        assert refused.value.headers is not None
        assert refused.value.headers["Retry-After"] == "1"
        async with httpx.AsyncClient() as plain:  # the refusal's body, as a browser gets it
            answer = await plain.get(
                _url(live, "polling").replace("polling", "websocket"),
                headers={
                    "X-Forwarded-For": ATTACKER,
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                },
            )
        assert answer.status_code == 429
        assert answer.json() == {"message": unconnected.CROWDED}

        ward = Listener("ward")
        live.listeners.append(ward)
        await ward.client.connect(
            live.base,
            auth={"token": nurse.token},
            headers={"X-Forwarded-For": WARD},
            transports=["websocket"],
            wait_timeout=5,
        )
        await marker(live, admin, ward, nurse.user)
        assert _unconnected(live, WARD) == 0  # connected: not counted

        await held.pop().close()
        await _settled(live, ATTACKER, PER_ADDRESS - 1)
        held.append(await _opened(http, live, ATTACKER))
        for ws in held:
            await ws.close()
    await _settled(live, ATTACKER, 0)


# The review's replay: websockets opened from one address and left silent.
REPLAY = 1000
SHIPPED = Settings.model_fields["live_unconnected_per_address"].default


@pytest.fixture
async def shipped(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[LiveServer]:
    """A server with the limit per address as shipped, no proxy (every client is 127.0.0.1),
    and a minute to connect (so none is closed for its time while a test runs)."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        live_connect_seconds=60,
        live_unconnected_per_address=SHIPPED,
    )
    async for server in run_live(settings):
        yield server


async def _silent(
    http: aiohttp.ClientSession,
    live: LiveServer,
    held: list[aiohttp.ClientWebSocketResponse],
    refused: list[int],
) -> None:
    """One websocket opened and left silent (held), or its refusal's status."""
    try:
        ws = await http.ws_connect(_url(live))
    except aiohttp.WSServerHandshakeError as refusal:
        refused.append(refusal.status)
        return
    held.append(ws)
    assert (await ws.receive_str()).startswith('0{"sid"')


async def test_the_shipped_limit_refuses_the_reviews_replay(shipped: LiveServer) -> None:
    """The review's attack against the limit as shipped: 1,000 websockets from one address,
    each opened and left silent. At most the shipped number are held, a fifth of the attack's
    size at most; every other is refused at its upgrade (429); once they have gone, the
    address may open one again."""
    held: list[aiohttp.ClientWebSocketResponse] = []
    refused: list[int] = []
    # Its own connector without aiohttp's 100 connections at once: each websocket holds one.
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        try:
            async with asyncio.timeout(120):
                for _ in range(0, REPLAY, 50):  # 50 at a time, as fast as they are answered
                    opening = (_silent(http, shipped, held, refused) for _ in range(50))
                    await asyncio.gather(*opening)
            assert len(held) == SHIPPED == _unconnected(shipped, "127.0.0.1")
            assert refused == [429] * (REPLAY - SHIPPED)
            assert len(refused) >= REPLAY * 4 // 5  # the replay refused: a fifth held at most
        finally:
            for ws in held:
                await ws.close()
        await _settled(shipped, "127.0.0.1", 0)
        again = await _opened(http, shipped, "127.0.0.1")
        await again.close()


async def test_a_connected_client_stays_past_the_time_and_hears_events(live: LiveServer) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    listener = await live.listener(nurse.token)
    assert _unconnected(live, "127.0.0.1") == 0
    await asyncio.sleep(SECONDS * 2)  # past the time an unconnected one has
    assert listener.client.connected
    await marker(live, admin, listener, nurse.user)


async def test_a_connect_waiting_for_its_turn_is_not_counted_against_its_address(
    gates: list[turns.Gate], live: LiveServer
) -> None:
    """In a reconnect storm the CONNECTs wait for their turn at the gate: the server's to
    answer, so a site behind one address is not refused for the server's own slowness. With
    the gate's only turn held (the storm), a websocket that sent its CONNECT is not counted;
    given the turn, it is connected."""
    nurse = await make_staff(live.settings, Role.NURSE)
    async with aiohttp.ClientSession() as http:
        ws = await _opened(http, live, ATTACKER)
        assert _unconnected(live, ATTACKER) == 1
        (gate,) = gates
        await gate.take()  # the storm's
        try:
            await ws.send_str("40" + json.dumps({"token": nurse.token}))
            await _settled(live, ATTACKER, 0)
        finally:
            gate.give_back()
        async with asyncio.timeout(10):
            assert (await ws.receive_str()).startswith("40{")  # connected
        assert _unconnected(live, ATTACKER) == 0
        await ws.close()


async def test_a_long_polling_session_that_never_connects_is_closed_and_counted(
    live: LiveServer,
) -> None:
    """The same rules for Engine.IO's long-polling: PER_ADDRESS sessions from one address, the
    next refused as a websocket is (429, the message, Retry-After), and a request that makes no
    session (a bad one) gives its place back; each closed when its time is up (its sid then
    unknown)."""
    headers = {"X-Forwarded-For": ATTACKER}
    sockets = app_services(live.app).live.sio.eio.sockets
    async with httpx.AsyncClient(headers=headers) as http:
        sids = []
        for _ in range(PER_ADDRESS):
            opened = await http.get(_url(live, "polling"))
            assert opened.status_code == 200
            sids.append(json.loads(opened.text[1:])["sid"])
        refused = await http.get(_url(live, "polling"))
        assert refused.status_code == 429
        assert refused.headers["Retry-After"] == "1"
        assert refused.json() == {"message": unconnected.CROWDED}
        assert _unconnected(live, ATTACKER) == PER_ADDRESS
        async with httpx.AsyncClient(headers={"X-Forwarded-For": WARD}) as ward:
            bad = await ward.get(_url(live, "polling").replace("EIO=4", "EIO=3"))
            assert bad.status_code == 400  # no session made: its place given back
            await _settled(live, WARD, 0)
        await _settled(live, ATTACKER, 0)  # each closed at its time
        # Its place is given back as its time is up, its socket closed (a task) just after.
        async with asyncio.timeout(5):
            while set(sids) & set(sockets):  # noqa: ASYNC110 - engineio's table, no event
                await asyncio.sleep(0.02)
        late = await http.get(f"{_url(live, 'polling')}&sid={sids[0]}")
        assert late.status_code == 400


async def test_a_long_polling_session_that_connects_is_no_longer_counted(
    live: LiveServer,
) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    polling = Listener("polling")
    live.listeners.append(polling)
    await polling.client.connect(
        live.base,
        auth={"token": nurse.token},
        headers={"X-Forwarded-For": WARD},
        transports=["polling"],
        wait_timeout=5,
    )
    assert _unconnected(live, WARD) == 0
    await asyncio.sleep(SECONDS * 2)
    assert polling.client.connected
    await marker(live, admin, polling, nurse.user)


@FREED_AT_THEIR_END
async def test_a_connection_closed_for_not_connecting_leaves_nothing_for_the_cycle_collector(
    live: LiveServer,
) -> None:
    """Closed by its time limit, a websocket ends as one its client closed does: its own tasks
    end it and reference counting frees it (tests/live/test_wire.py says why it matters)."""
    sockets = app_services(live.app).live.sio.eio.sockets
    gc.collect()
    gc.disable()
    try:
        async with aiohttp.ClientSession() as http:
            tabs = [await _opened(http, live, ATTACKER) for _ in range(PER_ADDRESS)]
            connections = [weakref.ref(s.wire._tcp) for s in sockets.values()]
            assert len(connections) == PER_ADDRESS
            for ws in tabs:
                await _closed_with(ws)
        async with asyncio.timeout(10):
            while sockets or any(c() is not None for c in connections):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
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
    server_side = [o for o in left if _module_of(o).partition(".")[0] in SERVER_MODULES]
    assert server_side == []


async def _polling_session(http: httpx.AsyncClient, live: LiveServer) -> str:
    opened = await http.get(_url(live, "polling"))
    assert opened.status_code == 200
    return str(json.loads(opened.text[1:])["sid"])


@pytest.mark.parametrize(
    "upgrade",
    [
        pytest.param(False, id="no-probe"),
        pytest.param(
            True,
            id="upgraded",
            # engineio's own socket keeps no way to end the websocket that upgraded it: the
            # stock library ends it when its client speaks again, or at its ping timeout.
            marks=pytest.mark.live_patch(
                "websocket-wire", why="a late session ends its upgraded websocket at once"
            ),
        ),
    ],
)
async def test_a_websocket_upgrading_an_unconnected_session_ends_in_its_time(
    live: LiveServer, upgrade: bool
) -> None:
    """A websocket naming a long-polling session that never connects: silent where engineio
    waits for the upgrade's probe without a limit, or upgraded and then silent where an
    Engine.IO close would wait for the client to speak. Each is closed in its time (1008)."""
    headers = {"X-Forwarded-For": ATTACKER}
    async with httpx.AsyncClient(headers=headers) as polling, aiohttp.ClientSession() as http:
        sid = await _polling_session(polling, live)
        ws = await http.ws_connect(f"{_url(live)}&sid={sid}", headers=headers)
        if upgrade:
            await ws.send_str("2probe")
            assert await ws.receive_str() == "3probe"
            await ws.send_str("5")
        message = await _closed_with(ws)
        assert ws.close_code == unconnected.CLOSE_UNCONNECTED, message
        assert message.extra == unconnected.LATE
    await _settled(live, ATTACKER, 0)


async def test_websockets_upgrading_count_against_their_address_until_upgraded(
    live: LiveServer,
) -> None:
    headers = {"X-Forwarded-For": ATTACKER}
    async with httpx.AsyncClient(headers=headers) as polling, aiohttp.ClientSession() as http:
        sid = await _polling_session(polling, live)
        url = f"{_url(live)}&sid={sid}"
        upgrading = [await http.ws_connect(url, headers=headers) for _ in range(PER_ADDRESS - 1)]
        await _settled(live, ATTACKER, PER_ADDRESS)  # the session and its would-be upgrades
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(url, headers=headers)
        assert refused.value.status == 429
        for ws in upgrading:
            await ws.close()
        await _settled(live, ATTACKER, 1)


async def test_a_client_that_connects_by_polling_and_upgrades_stays_and_hears_events(
    live: LiveServer,
) -> None:
    """python-socketio's client as it comes: long-polling first, then the upgrade to a
    websocket (before its Socket.IO connect); connected, it stays past the time and hears."""
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    tab = Listener("upgrading")
    live.listeners.append(tab)
    await tab.client.connect(
        live.base, auth={"token": nurse.token}, headers={"X-Forwarded-For": WARD}, wait_timeout=5
    )
    assert tab.client.transport() == "websocket"
    await asyncio.sleep(SECONDS * 2)
    assert tab.client.connected
    assert _unconnected(live, WARD) == 0
    await marker(live, admin, tab, nurse.user)
