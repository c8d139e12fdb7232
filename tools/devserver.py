"""Running the BFF in a child process on 127.0.0.1: for tests and benchmarks, not production.

`ServerProcess(env)` starts `python -m bff serve` on a free port with the given BFF_* settings,
waits until it accepts connections, and can report the process's memory from /proc.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# The local PostgreSQL server's maintenance database (trust auth on this machine).
PG_ADMIN_DSN = os.environ.get("BFF_PG_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None, seconds: float = 60) -> None:
    """Wait until something accepts connections on port (RuntimeError if process exits)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"nothing started listening on port {port}") from None
            time.sleep(0.05)


def local_env(root: Path, **settings: str) -> dict[str, str]:
    """BFF settings for a server with everything under root (SQLite, local disk, no Redis)."""
    env = {
        **os.environ,
        "BFF_HOST": "127.0.0.1",
        "BFF_DATABASE_URL": f"sqlite://{root}/bff.sqlite3",
        "BFF_STORAGE_URL": f"file://{root}/storage",
        "BFF_VAR_DIR": str(root / "var"),
        "BFF_REDIS_URL": "",
    }
    env.update({f"BFF_{key.upper()}": value for key, value in settings.items()})
    return env


class ServerProcess:
    """`python -m bff serve` in its own process; its output goes to `log` when given."""

    def __init__(self, env: dict[str, str], log: Path | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "BFF_PORT": str(self.port)}
        self.log = log
        with contextlib.ExitStack() as files:  # the child keeps its own copy of the log file
            output = subprocess.DEVNULL if log is None else files.enter_context(log.open("wb"))
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bff", "serve"],
                env=self.env,
                cwd=REPO,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for_port(self.port, self.process)
        except RuntimeError:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    @property
    def storage_path(self) -> Path:
        """Where a local-disk server keeps its files."""
        return Path(self.env["BFF_STORAGE_URL"].removeprefix("file://"))

    def memory(self, field: str) -> int:
        """A /proc status field of the server process, in bytes (VmRSS, VmHWM)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
        raise KeyError(field)

    def cpu_seconds(self) -> float:
        """CPU time the server process has used so far (user + system)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_until_idle(self, busy: float = 0.05, seconds: float = 60) -> None:
        """Wait until the server uses under `busy` of a core over half a second (at most
        `seconds`): work queued by an earlier load run must not count against the next."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            before = self.cpu_seconds()
            time.sleep(0.5)
            if self.cpu_seconds() - before < busy * 0.5:
                return

    def reset_peak(self) -> None:
        """Make VmHWM restart from the current resident size."""
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")

    def stop(self, grace: float = 20) -> None:
        """Stop the server (SIGTERM, SIGKILL after grace seconds) and wait for it."""
        self.process.terminate()
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class RedisProcess:
    """A throwaway redis-server on a free port, so stopping it disturbs nobody else."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start (or restart) the server on the same port."""
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(  # noqa: S603 - a fixed command
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process, 10)

    def stop(self) -> None:
        """Kill it at once, as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), Path("/usr/bin"))


class OwnPostgres:
    """A throwaway PostgreSQL server on a free port, run as the postgres user: for tests and
    benchmarks that stop or restart the database (never the machine's shared server)."""

    def __init__(self, root: Path) -> None:
        self.data = root / "pgdata"
        self.port = free_port()
        self.data.mkdir()
        shutil.chown(root, "postgres")
        shutil.chown(self.data, "postgres")
        self._as_postgres(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"
        )

    def _as_postgres(self, *command: str) -> None:
        subprocess.run(  # noqa: S603 - PostgreSQL's own tools, fixed arguments
            ["runuser", "-u", "postgres", "--", *command],  # noqa: S607
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "start"
        )

    def stop(self) -> None:
        """A fast shutdown (sessions ended, open transactions rolled back), waited for."""
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """A fast shutdown and a start at once: what an operator's restart or a failover does."""
        self.stop()
        self.start()

    @property
    def url(self) -> str:
        """The URL of its `postgres` database."""
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"


@contextlib.contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """An OwnPostgres started for the block, stopped and its files removed after it."""
    # Not under pytest's temporary folder: that is private to root, and the server runs as
    # the postgres user.
    root = Path(tempfile.mkdtemp(prefix="bff-pg-"))
    try:
        server = OwnPostgres(root)
        server.start()
        try:
            yield server
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def temporary_server(prefix: str, **settings: str) -> Iterator[ServerProcess]:
    """A ServerProcess on local defaults (local_env's settings) in a throwaway directory,
    stopped and the directory removed after the block: what a benchmark's main() starts."""
    with tempfile.TemporaryDirectory(prefix=prefix) as root:
        server = ServerProcess(local_env(Path(root), **settings))
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def running_redis() -> Iterator[RedisProcess]:
    """A RedisProcess started for the block and killed after it."""
    server = RedisProcess()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process started with start_new_session=True, with its children."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    """moto's S3 server on a free port of 127.0.0.1: (process, endpoint). Stop it with kill_group.

    It runs in its own process (and session): it keeps objects in memory and would otherwise
    compete with the caller for the GIL.
    """
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process, 30)
    except RuntimeError:
        kill_group(process)
        raise
    return process, f"http://127.0.0.1:{port}"


async def create_postgres_database(name: str) -> str:
    """Create a database on the local PostgreSQL server if it is missing; return its URL."""
    import asyncpg  # type: ignore[import-untyped]

    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        if not await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return f"{PG_ADMIN_DSN.rsplit('/', 1)[0]}/{name}"


async def drop_postgres_database(name: str) -> None:
    """Drop a database of the local PostgreSQL server, closing its connections."""
    import asyncpg

    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextlib.asynccontextmanager
async def throwaway_postgres(prefix: str) -> AsyncIterator[str]:
    """A new, empty database on the local PostgreSQL server (its URL), dropped afterwards."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    url = await create_postgres_database(name)
    try:
        yield url
    finally:
        await drop_postgres_database(name)


async def query_database(database_url: str, sql: str) -> list[tuple[Any, ...]]:
    """The rows of one query on a server's database (SQLite file or PostgreSQL), read from
    outside the server, as a test or a benchmark checks what it stored."""
    if database_url.startswith("sqlite://"):
        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite://"))) as db:
            return list(db.execute(sql).fetchall())
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        return [tuple(row) for row in await conn.fetch(sql)]
    finally:
        await conn.close()


async def start_server(
    stack: contextlib.AsyncExitStack, env: dict[str, str], postgres: str = ""
) -> ServerProcess:
    """`python -m bff serve` with env - on a throwaway PostgreSQL database named after the
    prefix `postgres` when given - stopped (then the database dropped) when stack closes."""
    if postgres:
        env = {
            **env,
            "BFF_DATABASE_URL": await stack.enter_async_context(throwaway_postgres(postgres)),
        }
    server = ServerProcess(env)
    stack.callback(server.stop)
    return server
