"""The commands an operator runs, run as written: the Procfile's web line (read from the file,
with and without $PORT) and the production Hypercorn profile's own "Run:" line, each against a
throwaway SQLite database. One start of the Procfile line carries the whole check: health,
liveness, a sign-in, the web app, /metrics, JSON logs that name no patient or file, and a
SIGTERM (sent to the whole process group, as systemd and Heroku do) while an upload and a view
are in flight and a live client is connected.

These start real servers: `make test` runs them once (in the SQLite phase)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import socketio

from bff.demo import CONTAINERS, DEMO_TAG_PATIENT, PATIENTS, SAMPLE_FILES, STAFF
from bff.demo_documents import DOCUMENT_NAMES
from storage.base import STAGING_DIR
from tests.tools.test_operator_files import procfile
from tools.devserver import REPO, free_port, kill_group, query_database, wait_for_port

ADMIN_PASSWORD = "entry-point-admin-password"
PRODUCTION_TOML = REPO / "config" / "hypercorn.production.toml"
BOUNDARY = "entry-boundary-5c1e"
KB = 1024
MB = 1024 * KB
# The names the journey uploads: they must not reach the log either.
UPLOADED = "journey-private-notes.txt"
IN_FLIGHT = "in-flight-at-sigterm.bin"
VIEWED = "viewed-at-sigterm.bin"


def server_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a platform: the venv on PATH, settings for a throwaway server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BFF_") and k != "PORT"}
    env.update(
        {
            "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}",
            "BFF_DATABASE_URL": f"sqlite://{root}/bff.sqlite3",
            "BFF_STORAGE_URL": f"file://{root}/storage",
            "BFF_VAR_DIR": str(root / "var"),
            "BFF_ADMIN_PASSWORD": ADMIN_PASSWORD,
            # A server that does not stop is sent SIGABRT (wait_gone): every thread's stack
            # then goes to its log, so the failure says where each process waited.
            "PYTHONFAULTHANDLER": "1",
            **extra,
        }
    )
    return env


class Started:
    """A shell command started in its own process group, its output in a log file."""

    def __init__(self, command: str, env: dict[str, str], port: int, log: Path) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log = log
        with log.open("wb") as output:
            self.process = subprocess.Popen(  # noqa: S603 - the operator's own command
                ["/bin/sh", "-c", command],
                env=env,
                cwd=REPO,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            wait_for_port(port, self.process, 60)
        except RuntimeError:
            kill_group(self.process)
            raise RuntimeError(log.read_text()) from None

    def stop(self) -> None:
        """SIGTERM to the whole group (systemd's KillMode, Heroku), then wait until the group
        is gone."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        self.wait_gone()

    def wait_gone(self, seconds: float = 30) -> None:
        """Wait until every process of the group has exited (the shell the Procfile line runs
        in dies at SIGTERM; Hypercorn finishes its work first)."""
        deadline = time.monotonic() + seconds
        while True:
            self.process.poll()  # the shell, reaped (a zombie would count as a member)
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                self.process.wait(timeout=seconds)
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not stop:\n{self.stacks()}")
            time.sleep(0.1)

    def stacks(self) -> str:
        """What the processes still in the group were doing: SIGABRT makes each Python one
        write its threads' stacks to the log (PYTHONFAULTHANDLER), then the end of the log."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGABRT)
        time.sleep(1)
        return self.tail(200)

    def wait_serving(self, workers: int = 2, seconds: float = 60) -> None:
        """Wait until each of `workers` worker processes has started serving (Hypercorn logs
        "Running on" once its worker's app has started)."""
        deadline = time.monotonic() + seconds
        while self.log.read_text(errors="replace").count("Running on") < workers:
            assert time.monotonic() < deadline, f"the workers did not start:\n{self.tail()}"
            time.sleep(0.1)

    def tail(self, lines: int = 60) -> str:
        """The end of the server's log (for a failure's message)."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def run(command: str, env: dict[str, str]) -> str:
    result = subprocess.run(  # noqa: S603 - the operator's own command
        ["/bin/sh", "-c", command], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


async def call(
    http: aiohttp.ClientSession, method: str, url: str, expect: int = 200, **kwargs: Any
) -> Any:
    async with http.request(method, url, **kwargs) as response:
        body = await response.read()
        assert response.status == expect, (url, response.status, body[:300])
        if response.content_type == "application/json":
            return json.loads(body)
        return body


async def sign_in(http: aiohttp.ClientSession, base: str) -> dict[str, str]:
    body = await call(
        http,
        "POST",
        f"{base}/api/auth/login",
        json={"username": "admin", "password": ADMIN_PASSWORD},
    )
    return {"x-auth-token": body["token"]}


async def check_serves(http: aiohttp.ClientSession, base: str) -> dict[str, str]:
    """Readiness, liveness, a sign-in and the web app; the admin's headers."""
    assert (await call(http, "GET", f"{base}/api/health"))["database"] == "ok"
    assert (await call(http, "GET", f"{base}/api/health/live")) == {"status": "ok"}
    headers = await sign_in(http, base)
    assert (await call(http, "GET", f"{base}/api/auth/me", headers=headers))["user"][
        "role"
    ] == "admin"
    page = await call(http, "GET", f"{base}/")
    assert b'<div id="root">' in page, page[:300]
    return headers


def form(name: str, content: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


async def upload(
    http: aiohttp.ClientSession,
    base: str,
    headers: dict[str, str],
    path: str,
    name: str,
    data: bytes,
) -> Any:
    return await call(
        http,
        "POST",
        f"{base}/api/blobs/{path}",
        201,
        data=form(name, data),
        headers={**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )


def metric(text: str, name: str, **labels: str) -> float:
    """The sum of a metric's samples that carry these labels."""
    total = 0.0
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}(?:\{{(.*)\}})? (\S+)", line)
        if match and all(f'{k}="{v}"' in (match.group(1) or "") for k, v in labels.items()):
            total += float(match.group(2))
    return total


@pytest.fixture(scope="module")
def procfile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Started, Path]]:
    """The Procfile's release and web lines on a platform that sets $PORT (JSON logs, the
    demo loaded)."""
    root = tmp_path_factory.mktemp("procfile")
    port = free_port()
    env = server_env(root, PORT=str(port), BFF_LOG_FORMAT="json")
    run(procfile()["release"], env)
    run(f"{sys.executable} -m bff demo", env)
    server = Started(procfile()["web"], env, port, root / "web.log")
    try:
        yield server, root
    finally:
        kill_group(server.process)


async def test_the_procfile_web_line_serves_logs_nothing_private_and_stops_gracefully(
    procfile_server: tuple[Started, Path],
) -> None:
    server, root = procfile_server
    base = server.base
    async with aiohttp.ClientSession() as http:
        headers = await check_serves(http, base)
        # A journey through the demo: folders, files, views, an upload, a deletion, the audit.
        for container in CONTAINERS:
            await call(
                http,
                "GET",
                f"{base}/api/assignments/containers/{container}/folders",
                headers=headers,
            )
        folder = "north-clinic/patient-001"
        listing = await call(http, "GET", f"{base}/api/blobs/{folder}", headers=headers)
        for blob in listing["blobs"]:
            link = await call(
                http, "GET", f"{base}/api/blobs/{folder}/{blob['name']}/url", headers=headers
            )
            await call(http, "GET", base + link["url"])
        sent_id = "req-entry-points-1"
        async with http.get(
            f"{base}/api/auth/me", headers={**headers, "X-Request-ID": sent_id}
        ) as response:
            assert response.headers["X-Request-ID"] == sent_id
        await upload(http, base, headers, folder, UPLOADED, b"private text")
        await call(http, "DELETE", f"{base}/api/blobs/{folder}/{UPLOADED}", headers=headers)
        await call(http, "GET", f"{base}/api/blobs/audit", headers=headers)
        # 8 MB of text (hex digits of random bytes: an upload must be of an accepted type).
        await upload(http, base, headers, folder, VIEWED, os.urandom(4 * MB).hex().encode())
        # Metrics: answered on this machine's own address (BFF_METRICS_ALLOW's default).
        scrape = (await call(http, "GET", f"{base}/metrics")).decode()
        assert metric(scrape, "bff_http_requests_total", route="/api/auth/login", status="200")
        assert metric(scrape, "bff_upload_bytes_total") >= 8 * MB
        assert metric(scrape, "bff_view_bytes_total") > 0
        assert metric(scrape, "bff_audit_batch_entries_count") > 0
        await call(http, "GET", f"{base}/metrics", 403, headers={"X-Forwarded-For": "127.0.0.1"})

        # In flight at SIGTERM: an upload (half sent), a view (partly read), a live client.
        live = socketio.AsyncClient(reconnection=False)
        heard: list[str] = []
        gone = asyncio.Event()
        live.on("live:reconnect", lambda data: heard.append("live:reconnect"))
        live.on("disconnect", lambda *args: gone.set())
        await live.connect(
            base, auth={"token": headers["x-auth-token"]}, transports=["websocket"], wait_timeout=5
        )
        content = os.urandom(MB).hex().encode()  # 2 MB of text
        body = form(IN_FLIGHT, content)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", server.port)
        up_writer.write(
            (
                f"POST /api/blobs/{folder} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                f"x-auth-token: {headers['x-auth-token']}\r\n"
                f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body[:MB]
        )
        await up_writer.drain()
        link = await call(http, "GET", f"{base}/api/blobs/{folder}/{VIEWED}/url", headers=headers)
        view_reader, view_writer = await asyncio.open_connection(
            "127.0.0.1", server.port, limit=64 * KB
        )
        view_writer.write(f"GET {link['url']} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await view_writer.drain()
        view_head = await view_reader.readuntil(b"\r\n\r\n")
        assert view_head.startswith(b"HTTP/1.1 200"), view_head
        received = len(await view_reader.read(64 * KB))
        staging = root / "storage" / STAGING_DIR
        deadline = time.monotonic() + 30
        while not any(staging.glob("*")):  # the upload is being written when the signal comes
            assert time.monotonic() < deadline, "the upload never started writing"
            await asyncio.sleep(0.05)

        os.killpg(server.process.pid, signal.SIGTERM)  # every process, as systemd and Heroku
        await asyncio.wait_for(gone.wait(), 15)  # closed at once, not after graceful_timeout
        assert heard == ["live:reconnect"]
        await asyncio.sleep(0.5)
        up_writer.write(body[MB:])  # the rest of the upload, after the signal
        await up_writer.drain()
        answer = await asyncio.wait_for(up_reader.read(64 * KB), 30)
        assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
        while chunk := await asyncio.wait_for(view_reader.read(MB), 20):
            received += len(chunk)
        assert received == 8 * MB  # the view finished too
        for writer in (up_writer, view_writer):
            writer.close()
        await live.disconnect()
    server.wait_gone()

    # The upload in flight is stored whole and indexed, nothing is left staged, and its audit
    # entry (flushed before the database closed) carries its request id.
    assert (root / "storage" / folder / IN_FLIGHT).read_bytes() == content
    assert not [p for p in staging.glob("*") if p.is_file()]
    database = f"sqlite://{root}/bff.sqlite3"
    assert await query_database(database, "SELECT count(*) FROM pending_uploads") == [(0,)]
    rows = await query_database(
        database, f"SELECT request_id FROM audit_logs WHERE blob_name = '{IN_FLIGHT}'"
    )
    assert rows and all(re.fullmatch(r"[0-9a-f]{32}", row[0]) for row in rows), rows

    # One JSON object per line; the request ids are there; no patient, folder or file names.
    lines = server.log.read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert any(r.get("request_id") == sent_id and r.get("route") == "/api/auth/me" for r in records)
    assert any(r.get("logger") == "bff.access" and r.get("user_id") for r in records)
    text = "\n".join(lines)
    private = [
        *CONTAINERS,
        *(folder for folders in CONTAINERS.values() for folder in folders),
        *SAMPLE_FILES,
        *DOCUMENT_NAMES,
        DEMO_TAG_PATIENT,
        *(patient.name for patient in PATIENTS.values()),
        *(patient.record_number for patient in PATIENTS.values()),
        *(name for _, name, _ in STAFF),
        UPLOADED,
        IN_FLIGHT,
        VIEWED,
        "?link=",
    ]
    assert [name for name in private if name in text] == []


async def test_the_procfile_web_line_without_port_listens_on_bff_port(tmp_path: Path) -> None:
    port = free_port()
    env = server_env(tmp_path, BFF_PORT=str(port))
    run(procfile()["release"], env)
    server = Started(procfile()["web"], env, port, tmp_path / "web.log")
    try:
        async with aiohttp.ClientSession() as http:
            assert (await call(http, "GET", f"{server.base}/api/health"))["status"] == "ok"
        server.stop()
    finally:
        kill_group(server.process)


def worker_pids(metrics_dir: Path) -> set[int]:
    """The processes that keep values in a multiprocess metrics directory."""
    return {int(p.stem.rsplit("_", 1)[1]) for p in metrics_dir.glob("counter_*.db")}


def production_command() -> str:
    """The production profile's own "# Run:" line."""
    match = re.search(r"^# Run: (.+)$", PRODUCTION_TOML.read_text(), re.MULTILINE)
    assert match is not None
    return match.group(1)


async def test_the_production_profile_serves_on_its_workers_and_sums_their_metrics(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = server_env(tmp_path, PORT=str(port))
    run(procfile()["release"], env)
    server = Started(production_command(), env, port, tmp_path / "web.log")
    try:
        async with aiohttp.ClientSession() as http:
            await check_serves(http, server.base)
        requests = 30
        for _ in range(requests):  # a new connection each: the workers share the accepts
            async with aiohttp.ClientSession() as http:
                await call(http, "GET", f"{server.base}/api/health/live")
        metrics_dirs = list((tmp_path / "var" / "metrics").iterdir())
        assert len(metrics_dirs) == 1  # one per server (its master's pid)
        deadline = time.monotonic() + 60  # a worker writes its files once it has loaded
        while len(pids := worker_pids(metrics_dirs[0])) < 2:
            assert time.monotonic() < deadline, pids
            await asyncio.sleep(0.2)
        async with aiohttp.ClientSession() as http:
            scrape = (await call(http, "GET", f"{server.base}/metrics")).decode()
        # check_serves asked once, then these: every worker's answers, summed
        assert metric(scrape, "bff_http_requests_total", route="/api/health/live") == requests + 1
        server.stop()
    finally:
        kill_group(server.process)


def hypercorn_master(group: int) -> int:
    """The Hypercorn master of a process group (not the shell that started it; its workers are
    spawned by multiprocessing)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            pgrp = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError, ValueError):
            continue
        shell = command.startswith(b"/bin/sh ")
        if (
            pgrp == group
            and b"hypercorn" in command
            and not shell
            and b"multiprocessing" not in command
        ):
            found.append(int(entry.name))
    assert len(found) == 1, found
    return found[0]


async def test_sigterm_to_the_master_alone_drains_every_worker_at_once(tmp_path: Path) -> None:
    """Docker and Kubernetes signal PID 1 only: the workers still tell their live clients to
    reconnect and close them at once, not when graceful_timeout (20 s) ends."""
    port = free_port()
    env = server_env(tmp_path, PORT=str(port))
    run(procfile()["release"], env)
    server = Started(production_command(), env, port, tmp_path / "web.log")
    try:
        server.wait_serving()  # both workers, each to get live clients
        async with aiohttp.ClientSession() as http:
            headers = await sign_in(http, server.base)
        clients = []
        for _ in range(4):  # new connections: the two workers share the accepts
            live = socketio.AsyncClient(reconnection=False)
            heard: list[str] = []
            gone = asyncio.Event()
            live.on("live:reconnect", lambda data, heard=heard: heard.append("live:reconnect"))
            live.on("disconnect", lambda *args, gone=gone: gone.set())
            await live.connect(
                server.base,
                auth={"token": headers["x-auth-token"]},
                transports=["websocket"],
                wait_timeout=5,
            )
            clients.append((live, heard, gone))
        signalled = time.monotonic()
        os.kill(hypercorn_master(server.process.pid), signal.SIGTERM)
        for live, heard, gone in clients:
            await asyncio.wait_for(gone.wait(), 10)
            assert heard == ["live:reconnect"]
            await live.disconnect()
        server.wait_gone(15)
        assert time.monotonic() - signalled < 15  # graceful_timeout is 20 s
        log = server.log.read_text()
        # every client was told (above), wherever it was; both workers ran their stop steps (a
        # worker with no client may stop before its watch logs "Stopping")
        assert log.count("Tortoise-ORM shutdown") == 2, log
    finally:
        kill_group(server.process)


async def test_sigterm_to_one_worker_alone_stops_the_whole_server(tmp_path: Path) -> None:
    """An operator's `kill` of one worker: it drains, and with its master's stop event not set
    (the master was not signalled) it passes SIGTERM on, so every worker stops the graceful
    way. (Where every process is signalled, it sends none: bff/shutdown.py.)"""
    port = free_port()
    env = server_env(tmp_path, PORT=str(port))
    run(procfile()["release"], env)
    server = Started(production_command(), env, port, tmp_path / "web.log")
    try:
        metrics_dir = tmp_path / "var" / "metrics"
        deadline = time.monotonic() + 60  # a worker writes its files once it has served
        server.wait_serving()  # both workers watching for their stop
        while len(pids := {p for d in metrics_dir.iterdir() for p in worker_pids(d)}) < 2:
            assert time.monotonic() < deadline, (pids, server.tail())
            async with aiohttp.ClientSession() as http:  # new connections reach both workers
                await call(http, "GET", f"{server.base}/api/health/live")
        os.kill(min(pids), signal.SIGTERM)
        server.wait_gone(20)
        log = server.log.read_text()
        assert log.count("Stopping: finishing requests in flight") >= 1, log  # the signalled
        assert log.count("Tortoise-ORM shutdown") == 2, log  # both ran their stop steps
    finally:
        kill_group(server.process)
