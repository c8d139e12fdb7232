"""A client that stops reading its events (a stalled tab, or an attacker that never reads) is cut
once it leaves QUEUED_LIMIT packets unread (bff/live/delivery.py), with the live patches on (its
TCP connection aborted through its Wire) and off (the stock libraries: closed at Engine.IO, its
queue emptied): engineio's queue per connection has no limit of its own, and without this cut
the server kept every event for it, its memory growing without end."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bff.live import delivery, patches
from bff.live.events import LIVE_RESYNC, user_room
from bff.services import app_services
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings
from tests.factories import make_staff
from tests.live.conftest import LiveServer, run_live
from tests.live.raw_client import read_to_end, slow_and_other, stall
from tools.devserver import RedisProcess


@pytest.fixture
def restored() -> Iterator[None]:
    """The patches as the tests' own setting has them, afterwards."""
    yield
    patches.apply(Settings().live_tuning)


@pytest.mark.parametrize("tuning", ["on", "off"])
async def test_a_client_that_stops_reading_is_cut_with_the_patches_on_and_off(
    database_url: str,
    run_dir: Path,
    tmp_path: Path,
    tuning: str,
    restored: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The attack replayed at the shipped limit: a signed-in client connects as the web app
    does, stops reading, and the server goes on emitting events to it. Its queue never holds
    more than QUEUED_LIMIT packets, its connection is ended (Engine.IO and Socket.IO forget
    it), everyone else's events go on, and what it still reads ends with a close."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", live_tuning=tuning
    )
    async for live in run_live(settings):
        slow, ear, rooms = await slow_and_other(live)
        hub = app_services(live.app).live
        engine = hub.sio.eio
        try:
            slow_socket = engine.sockets[slow.sid]
            assert (getattr(slow_socket, "wire", None) is not None) == (tuning == "on")
            await stall(live, slow, ear, rooms)  # its buffers full: now everything queues
            most = 0
            with caplog.at_level(logging.WARNING, logger="bff.live.delivery"):
                for n in range(delivery.QUEUED_LIMIT - 100):
                    await hub.sio.emit("test:more", {"n": n}, to=rooms)  # delivered on return
                    most = max(most, slow_socket.queue.qsize())
                # Then a burst, as a busy ward makes one: all sent before any is delivered.
                await asyncio.gather(
                    *(hub.sio.emit("test:more", {"n": n}, to=rooms) for n in range(400))
                )
                most = max(most, slow_socket.queue.qsize())
            assert most <= delivery.QUEUED_LIMIT
            # Cut once (with a Wire, its connection is torn down a moment later: the events of
            # that moment pass it by, not cut it again).
            assert caplog.text.count("events unread") == 1
            assert slow.sid not in engine.sockets
            assert hub.sio.manager.sid_from_eio_sid(slow.sid, "/") is None
            assert slow_socket.queue.qsize() <= 1  # nothing kept for it (a wake-up at most)
            message = f"A live connection left {delivery.QUEUED_LIMIT} events unread: it is closed"
            assert message in caplog.text
            await hub.sio.emit("test:still", {}, to=rooms)
            await ear.wait_for("test:still")
            # Read again (a tab whose network came back): it gets what was on its way, then
            # the close, and reconnects and refetches as after any dropped connection.
            assert await read_to_end(slow) < delivery.QUEUED_LIMIT
        finally:
            slow.close()


async def _polling_session(http: httpx.AsyncClient, live: LiveServer) -> tuple[str, str, str]:
    """A nurse's long-polling Socket.IO session, connected, that will never poll again: its
    address, its Engine.IO sid and the nurse's room."""
    nurse = await make_staff(live.settings, Role.NURSE)
    base = f"{live.base}/socket.io/?EIO=4&transport=polling"
    opened = await http.get(base)
    sid = json.loads(opened.text[1:])["sid"]
    posted = await http.post(f"{base}&sid={sid}", content="40" + json.dumps({"token": nurse.token}))
    assert posted.status_code == 200
    answer = await http.get(f"{base}&sid={sid}")
    assert answer.text.startswith("40{"), answer.text
    return f"{base}&sid={sid}", sid, user_room(nurse.user.id)


async def test_a_long_polling_client_that_stops_polling_is_cut(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The same over long-polling, which never has a Wire (so the patches' cut never reached
    it): a signed-in session that posts but never polls again, while events go on. Cut at
    QUEUED_LIMIT packets, its next poll answered 400 (the session is gone)."""
    hub = app_services(live.app).live
    engine = hub.sio.eio
    async with httpx.AsyncClient(timeout=10) as http:
        address, sid, room = await _polling_session(http, live)
        eio_socket = engine.sockets[sid]
        most = 0
        with caplog.at_level(logging.WARNING, logger="bff.live.delivery"):
            for n in range(delivery.QUEUED_LIMIT + 100):
                await hub.sio.emit("test:more", {"n": n}, to=room)
                most = max(most, eio_socket.queue.qsize())
        assert most <= delivery.QUEUED_LIMIT
        assert sid not in engine.sockets
        assert hub.sio.manager.sid_from_eio_sid(sid, "/") is None
        assert f"left {delivery.QUEUED_LIMIT} events unread" in caplog.text
        assert (await http.get(address)).status_code == 400


async def test_with_redis_an_event_for_this_process_alone_is_cut_at_the_limit_too(
    database_url: str,
    run_dir: Path,
    tmp_path: Path,
    redis: RedisProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With Redis, the events a process sends its own connections only (`ignore_queue`: the
    live:resync after the link comes back, a restart's live:reconnect) go by its delivery task
    like any other: a client that left QUEUED_LIMIT packets unread is cut by one, not sent it
    past the limit (python-socketio's own emit, one task per connection, queued it)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", redis_url=redis.url
    )
    async for live in run_live(settings):
        hub = app_services(live.app).live
        engine = hub.sio.eio
        async with httpx.AsyncClient(timeout=10) as http:
            _, sid, room = await _polling_session(http, live)
            eio_socket = engine.sockets[sid]
            for n in range(delivery.QUEUED_LIMIT):  # through Redis, delivered a moment later
                await hub.sio.emit("test:more", {"n": n}, to=room)
            async with asyncio.timeout(20):
                while eio_socket.queue.qsize() < delivery.QUEUED_LIMIT:  # noqa: ASYNC110 - engineio's queue
                    await asyncio.sleep(0.05)
            with caplog.at_level(logging.WARNING, logger="bff.live.delivery"):
                await hub.sio.emit(LIVE_RESYNC, {}, ignore_queue=True)
            assert eio_socket.queue.qsize() <= 1  # nothing more kept for it (a wake-up at most)
            assert sid not in engine.sockets
            assert f"left {delivery.QUEUED_LIMIT} events unread" in caplog.text
