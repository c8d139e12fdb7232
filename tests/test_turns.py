"""Requests before the file jobs' work on the embedded database (bff/turns.py): a piece of it
waits for a quiet moment (up to its patience), never jumps ahead of a request, runs one at a
time, stops waiting for a request in progress once that request is long, and is not held up at
all on PostgreSQL; the app counts its requests; and a file job waits while a request is in
progress."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from quart import Quart

from bff import turns
from bff.db import dialect, transaction
from bff.turns import RequestInProgress, background_turn, requests_in_progress
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tests.search.conftest import JOB_SETTINGS, job_of, settled


@pytest.fixture(autouse=True)
async def fresh_gate() -> AsyncIterator[None]:
    """This loop's gate as new (the test session shares one loop): these tests count the
    requests they make, not what another test may have left running."""
    loop = asyncio.get_running_loop()
    turns._GATES.pop(loop, None)
    yield
    turns._GATES.pop(loop, None)


@pytest.fixture
async def app(database_url: str, run_dir: Path) -> AsyncIterator[Quart]:
    async with started_app(make_settings(database_url, run_dir)) as app:
        yield app


def on_sqlite() -> bool:
    return dialect() == "sqlite"


class Waits:
    """When the gate's pieces waited (a spy on bff/turns.py's wait_set, loop times): the
    marker that a piece has looked at the gate and chosen to wait."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.times: list[float] = []
        real = turns.wait_set

        async def counted(event: asyncio.Event, seconds: float) -> bool:
            self.times.append(asyncio.get_running_loop().time())
            return await real(event, seconds)

        monkeypatch.setattr(turns, "wait_set", counted)

    async def looked_again(self, begun: Callable[[], bool]) -> None:
        """Once the quiet moment a piece waits for has passed (the gate's own window), wake the
        waiting piece as a request's end does, without being one, and return once it has
        looked at the gate again: it waits again, or it has begun (`begun`). So a piece that
        should not start has had its chance to start wrongly."""
        loop = asyncio.get_running_loop()
        await asyncio.sleep(turns.QUIET * 2)  # the window passes: time is the behaviour here
        woken = loop.time()
        turns._gate().ended.set()
        async with asyncio.timeout(5):
            while not begun() and not (self.times and self.times[-1] >= woken):  # noqa: ASYNC110
                await asyncio.sleep(0)


async def _piece(log: list[str], name: str, hold: float = 0.0) -> float:
    """A piece of background work: a transaction; when it began (loop time)."""
    async with background_turn(), transaction():
        began = asyncio.get_running_loop().time()
        log.append(f"{name} began")
        await asyncio.sleep(hold)
        log.append(f"{name} ended")
    return began


async def test_background_work_waits_for_the_request_in_progress(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 30.0)
    loop = asyncio.get_running_loop()
    log: list[str] = []
    waits = Waits(monkeypatch)
    with RequestInProgress():
        piece = asyncio.create_task(_piece(log, "job"))
        await waits.looked_again(lambda: bool(log))
        if on_sqlite():
            assert log == []  # looked again after the quiet moment: still waiting
        ended = loop.time()
    began = await asyncio.wait_for(piece, 5)
    if on_sqlite():
        assert began - ended >= turns.QUIET * 0.9  # and a quiet moment after it
    else:
        assert log[:1] == ["job began"] and began < ended  # PostgreSQL: at once


async def test_a_request_goes_before_background_work_already_waiting(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request asks for the connection after the piece of background work did, and still
    has its transaction first (in plain Tortoise the piece, asking first, would go first)."""
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 30.0)
    log: list[str] = []
    waits = Waits(monkeypatch)
    with RequestInProgress():
        piece = asyncio.create_task(_piece(log, "job"))
        async with asyncio.timeout(5):  # the piece has asked and waits at the gate (SQLite)
            while on_sqlite() and not waits.times:  # noqa: ASYNC110 - the spy's record
                await asyncio.sleep(0)
        async with transaction():
            log.append("request's transaction")
    await asyncio.wait_for(piece, 5)
    if on_sqlite():
        assert log == ["request's transaction", "job began", "job ended"]


async def test_a_steady_stream_of_requests_slows_background_work_but_never_stops_it(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 0.3)
    monkeypatch.setattr(turns, "QUIET", 0.05)  # a loaded machine's pauses are not quiet moments
    loop = asyncio.get_running_loop()
    log: list[str] = []
    stop = asyncio.Event()

    async def requests() -> None:
        """Requests one after another, a millisecond apart, as one busy client sends them."""
        while not stop.is_set():
            with RequestInProgress():
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.001)

    stream = asyncio.create_task(requests())
    try:
        async with asyncio.timeout(5):  # the stream is flowing: a few requests made
            while turns._gate().count < 3:  # noqa: ASYNC110 - the gate's count of requests
                await asyncio.sleep(0.001)
        asked = loop.time()
        began = await asyncio.wait_for(_piece(log, "job"), 5)
    finally:
        stop.set()
        await stream
    waited = began - asked
    if on_sqlite():
        assert 0.25 <= waited < 2.0
    else:
        assert waited < 0.25


async def test_one_piece_at_a_time_and_a_request_between_two(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two pieces asked for at once: the second waits for the first to end and then, like the
    first, for requests; a request that begins during the first goes before the second."""
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 30.0)
    log: list[str] = []
    waits = Waits(monkeypatch)
    first = asyncio.create_task(_piece(log, "first", hold=0.2))
    second = asyncio.create_task(_piece(log, "second"))
    async with asyncio.timeout(5):
        while "first began" not in log:  # noqa: ASYNC110 - the pieces' own log, no event
            await asyncio.sleep(0.01)
    with RequestInProgress():
        async with transaction():
            log.append("request's transaction")
        # The first piece has ended (its transaction went before the request's, on SQLite's
        # one connection); the second, its turn come, has looked again after the quiet
        # moment and still waits.
        await waits.looked_again(lambda: "second began" in log)
        snapshot = list(log)
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    if on_sqlite():
        assert snapshot == ["first began", "first ended", "request's transaction"]
        assert log[3:] == ["second began", "second ended"]
    else:  # each on a connection of its own, at once (in either order)
        assert log.index("second began") < log.index("first ended")


async def test_a_long_request_stops_holding_the_jobs_back(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request in progress (a large upload on a slow link) is waited for during its first
    LONG_REQUEST seconds only."""
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 30.0)
    monkeypatch.setattr(turns, "LONG_REQUEST", 0.4)
    loop = asyncio.get_running_loop()
    log: list[str] = []
    with RequestInProgress():
        began_request = loop.time()
        began = await asyncio.wait_for(_piece(log, "job"), 5)
        assert requests_in_progress() == 1  # still going
    if on_sqlite():
        assert 0.4 <= began - began_request < 2.0
    else:
        assert began - began_request < 0.4


async def test_the_app_counts_the_requests_it_handles(app: Quart) -> None:
    """A request counts from its start (here: its body still arriving) to its answer."""
    client = app.test_client()
    assert requests_in_progress() == 0
    async with client.request(
        "/api/auth/login", method="POST", headers={"content-type": "application/json"}
    ) as connection:
        await connection.send(b'{"username": "nobody", ')
        for _ in range(100):  # the app's task starts on the next turns of the loop
            if requests_in_progress() == 1:
                break
            await asyncio.sleep(0.01)
        assert requests_in_progress() == 1
        await connection.send(b'"password": "wrong password"}')
        await connection.send_complete()
        await connection.receive()
    assert requests_in_progress() == 0


async def test_a_file_job_waits_while_a_request_is_in_progress(
    database_url: str, run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload's text is not claimed while another upload is still arriving (a slow link),
    and is read once it has ended.

    The slow upload is under way before the first one commits (the job's runner is woken at
    that commit), and neither the patience nor the slow upload's weight runs out on a loaded
    machine: the job can only be claimed once the slow upload has ended. (Opened after the
    first upload ended, the slow one had to arrive within a quiet moment of 0.5 s, or the
    runner claimed the job first.)"""
    monkeypatch.setattr(turns, "BACKGROUND_PATIENCE", 600.0)
    monkeypatch.setattr(turns, "LONG_REQUEST", 600.0)
    waits = Waits(monkeypatch)
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", **JOB_SETTINGS
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        boundary = "slow-upload"
        headers = {
            **ward.nurse.headers,
            "content-type": f"multipart/form-data; boundary={boundary}",
        }
        async with ward.client.request(ward.url(), method="POST", headers=headers) as slow:
            await slow.send(
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                'filename="scan.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            )
            await slow.send(b"x" * 4096)
            while requests_in_progress() == 0:  # noqa: ASYNC110 - a count, no event
                await asyncio.sleep(0)  # the app takes the slow upload in
            before = len(waits.times)
            assert (
                await ward.upload(ward.nurse, "notes.txt", b"penicillin allergy")
            ).status_code == 201
            if dialect() == "sqlite":  # the runner, woken by that commit, waits at the gate
                async with asyncio.timeout(10):
                    while len(waits.times) == before:  # noqa: ASYNC110 - the spy's record
                        await asyncio.sleep(0.001)
                await waits.looked_again(lambda: False)  # and still waits after its chance
            job = await job_of(ward, "notes.txt")
            assert job is not None
            if dialect() == "sqlite":
                assert (job.state, job.attempts) == ("pending", 0)  # not even claimed
            await slow.send(f"\r\n--{boundary}--\r\n".encode())
            await slow.send_complete()
            await slow.receive()
        assert (await settled(ward, "notes.txt")).state == "done"
