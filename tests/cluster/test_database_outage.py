"""PostgreSQL going away briefly: requests answer 503 with a message at once (no hang, no
traceback), and the service recovers by itself when the database returns."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.cluster.conftest import ADMIN_PASSWORD, sign_in
from tools.devserver import ServerProcess, free_port, local_env

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), Path("/usr/bin"))


class OwnPostgres:
    """A throwaway PostgreSQL server on a free port, run as the postgres user."""

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
        options = f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "start"
        )

    def stop(self) -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"


@pytest.fixture
def postgres() -> Iterator[OwnPostgres]:
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


async def test_a_database_outage_is_503_then_recovers(
    postgres: OwnPostgres, tmp_path: Path
) -> None:
    env = local_env(tmp_path, database_url=postgres.url, admin_password=ADMIN_PASSWORD)
    server = ServerProcess(env)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as http:
            token = await sign_in(http, server.base, "admin", ADMIN_PASSWORD)
            headers = {"x-auth-token": token}
            url = f"{server.base}/api/users/dashboard"
            async with http.get(url, headers=headers) as response:
                assert response.status == 200
            postgres.stop()
            for probe in (url, f"{server.base}/api/health"):
                started = time.monotonic()
                async with http.get(probe, headers=headers) as response:
                    assert response.status == 503, probe
                    body = await response.json()
                assert "unavailable" in body["message"].lower()
                assert "Traceback" not in body["message"]
                assert time.monotonic() - started < 5  # an answer, not a hang
            postgres.start()
            deadline = time.monotonic() + 30
            while True:
                async with http.get(url, headers=headers) as response:
                    if response.status == 200:
                        break
                assert time.monotonic() < deadline, "the service did not recover by itself"
                time.sleep(0.5)  # noqa: ASYNC251 - a pause between probes of another process
    finally:
        server.stop()
