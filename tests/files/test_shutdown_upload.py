"""An upload cut off by shutdown leaves nothing behind (issue 31, point 6): the Procfile's web
process (Hypercorn, a master and its worker) gets SIGTERM while an upload trickles in for longer
than `graceful_timeout` (1 s here, 20 s in the profiles). Once the process has exited there is
no pending upload row, no staged object and (S3, moto's server) no unfinished multipart upload,
without waiting for the next start's sweep.

Runs on PostgreSQL with BFF_TEST_DATABASE=postgres (local disk only: what is left in storage
does not depend on the database).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiobotocore.session import AioSession
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from bff.shutdown import RESTARTING
from storage.base import STAGING_DIR
from tests.conftest import REGION
from tests.early_answer import post_streaming
from tests.tools.test_entry_points import Started, run, server_env, sign_in
from tools.devserver import free_port, kill_group, query_database, throwaway_postgres

pytestmark = pytest.mark.database

BOUNDARY = "shutdown-boundary-3f9a"
MB = 1024 * 1024
UPLOAD_ROUTE = "/api/blobs/<container>/<folder>"
SITES = ["local"] if os.environ.get("BFF_TEST_DATABASE") == "postgres" else ["local", "s3"]


async def _trickle(name: str) -> AsyncIterator[bytes]:
    """A form whose file sends 9 MiB at once (S3: its first 8 MiB part goes out), then 64 KiB
    every 0.2 s: far longer than the grace (bounded: 60 s)."""
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    for _ in range(9):
        yield secrets.token_bytes(MB)
    for _ in range(300):
        await asyncio.sleep(0.2)
        yield secrets.token_bytes(64 * 1024)


async def _upload(url: str, headers: dict[str, str]) -> tuple[int, str, str | None]:
    """The answer's status, message and Retry-After (0: no answer)."""
    answer = await post_streaming(
        url,
        _trickle("cut-off.bin"),
        {**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )
    if not answer.status:
        return 0, "closed without an answer", None
    message = json.loads(answer.body).get("message", "")
    return answer.status, message, answer.headers.get("retry-after")


def _requests_counted(var: Path, status: str) -> float:
    """bff_http_requests_total of uploads with status, summed over the stopped server's
    workers (prometheus_client's multiprocess files stay after the exit)."""
    registry = CollectorRegistry()
    for directory in (var / "metrics").iterdir():
        MultiProcessCollector(registry, path=str(directory))
    return sum(
        sample.value
        for metric in registry.collect()
        for sample in metric.samples
        if sample.name == "bff_http_requests_total"
        and sample.labels.get("route") == UPLOAD_ROUTE
        and sample.labels.get("status") == status
    )


@pytest.mark.parametrize("site", SITES)
async def test_an_upload_cut_off_by_shutdown_leaves_nothing_behind(
    site: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        extra: dict[str, str] = {}
        if os.environ.get("BFF_TEST_DATABASE") == "postgres":
            url = await stack.enter_async_context(throwaway_postgres("bff_shutdown"))
            extra["BFF_DATABASE_URL"] = url
        s3 = None
        if site == "s3":
            endpoint: str = request.getfixturevalue("s3_endpoint")
            session: AioSession = request.getfixturevalue("s3_session")
            bucket = "shutdown-" + secrets.token_hex(6)
            s3 = await stack.enter_async_context(
                session.create_client("s3", endpoint_url=endpoint, region_name=REGION)
            )
            await s3.create_bucket(Bucket=bucket)
            extra["BFF_STORAGE_URL"] = (
                f"s3://{bucket}/records?endpoint_url={endpoint}&region={REGION}"
            )
        env = {**server_env(tmp_path, **extra)}
        if site == "s3":
            env.update({k: v for k, v in os.environ.items() if k.startswith("AWS_")})
        database_url = env["BFF_DATABASE_URL"]
        run(f"{sys.executable} -m bff migrate", env)
        port = free_port()
        command = (
            "exec hypercorn --config config/hypercorn.toml --graceful-timeout 1 "
            f"--bind 127.0.0.1:{port} bff.asgi:app"
        )
        server = Started(command, env, port, tmp_path / "web.log")
        stack.callback(kill_group, server.process)

        async def staged() -> list[str]:
            """What the staging area holds: files (temporary ones too) or keys and
            unfinished multipart uploads."""
            if s3 is None:
                area = tmp_path / "storage" / STAGING_DIR
                return [p.name for p in area.iterdir()] if area.exists() else []
            listed = await s3.list_objects_v2(Bucket=bucket, Prefix=f"records/{STAGING_DIR}/")
            uploads = await s3.list_multipart_uploads(Bucket=bucket)
            return [o["Key"] for o in listed.get("Contents", [])] + [
                "multipart:" + u["Key"] for u in uploads.get("Uploads", [])
            ]

        async def pending() -> int:
            return len(await query_database(database_url, "SELECT id FROM pending_uploads"))

        async with aiohttp.ClientSession() as http:
            headers = await sign_in(http, server.base)
            for path, body in (
                ("/api/admin/containers", {"name": "ward-stop"}),
                ("/api/admin/containers/ward-stop/folders", {"name": "patient-1"}),
            ):
                async with http.post(server.base + path, json=body, headers=headers) as r:
                    assert r.status == 201, await r.text()
            uploading = asyncio.create_task(
                _upload(f"{server.base}/api/blobs/ward-stop/patient-1", headers)
            )
            deadline = time.monotonic() + 60
            while not (await pending() and await staged()):
                assert time.monotonic() < deadline, "the upload never started staging"
                assert not uploading.done(), uploading.result()
                await asyncio.sleep(0.1)
            during = await staged()
            os.killpg(server.process.pid, signal.SIGTERM)  # systemd's KillMode, Heroku
            server.wait_gone(60)
            # Answered within the grace, as any refusal is: logged, counted, no traceback.
            assert await uploading == (503, RESTARTING, "5")
        log = server.log.read_text()
        assert f"POST {UPLOAD_ROUTE} 503" in log
        assert "Traceback" not in log and "CancelledError" not in log, log
        assert _requests_counted(tmp_path / "var", "503") == 1
        left, rows = await staged(), await pending()
        print(f"\n{site}: staging while uploading {during}; after the exit {left}, {rows} pending")
        assert left == []
        assert rows == 0
