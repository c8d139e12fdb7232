"""Uploads through server crashes: N times, 4 clients upload 1-5 MB files while the server is
SIGKILLed at a random moment; then one restart, and the figures: uploads acknowledged, intact
(listed with the right size and bytes), failed, failed but committed (listed, whole), objects
outside the index right after the crashes and after the restart's sweep, and retries of the
failed names refused with 409.

Usage: .venv/bin/python bench/crash_bench.py [--backend local|s3] [--crashes 10] [--postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from aiobotocore.session import get_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import (
    ServerProcess,
    kill_group,
    local_env,
    query_database,
    start_moto,
    throwaway_postgres,
)

PASSWORD = "crash-bench-admin-pass"
BOUNDARY = "crash-bench-7f3a"
MB = 1024 * 1024
WARD, FOLDER = "crash-bench", "patient-1"


def content(name: str, size: int) -> bytes:
    """A file's deterministic bytes."""
    seed = hashlib.sha256(name.encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


async def body(name: str, data: bytes) -> AsyncIterator[bytes]:
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    for start in range(0, len(data), 256 * 1024):
        yield data[start : start + 256 * 1024]
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


class Bench:
    def __init__(self, env: dict[str, str], database_url: str, objects: Any) -> None:
        self.env = env
        self.database_url = database_url
        self.objects = objects
        self.sizes: dict[str, int] = {}
        self.acknowledged: set[str] = set()
        self.failed: set[str] = set()

    async def query(self, sql: str) -> list[tuple[Any, ...]]:
        return await query_database(self.database_url, sql)

    async def pending(self) -> int:
        """Pending uploads recorded (0 on a version without them, for a before/after run)."""
        try:
            return len(await self.query("SELECT id FROM pending_uploads"))
        except Exception:  # noqa: BLE001 - the table does not exist before the fix
            return 0

    async def indexed(self) -> set[str]:
        rows = await self.query(
            "SELECT c.name, f.name, x.name FROM files x JOIN folders f ON f.id = x.folder_id "
            "JOIN containers c ON c.id = f.container_id"
        )
        return {"/".join(row) for row in rows}

    async def outside(self) -> set[str]:
        return set(await self.objects()) - await self.indexed()

    async def sign_in(self, http: aiohttp.ClientSession, base: str) -> dict[str, str]:
        login = {"username": "admin", "password": PASSWORD}
        async with http.post(f"{base}/api/auth/login", json=login) as response:
            return {"x-auth-token": (await response.json())["token"]}

    async def client(
        self, http: aiohttp.ClientSession, base: str, headers: dict[str, str], who: int, run: int
    ) -> None:
        for index in range(10_000):
            name = f"r{run}-c{who}-{index}.bin"
            size = random.randint(1 * MB, 5 * MB)
            self.sizes[name] = size
            try:
                async with http.post(
                    f"{base}/api/blobs/{WARD}/{FOLDER}",
                    data=body(name, content(name, size)),
                    headers={
                        **headers,
                        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                    },
                ) as response:
                    await response.read()
                    (self.acknowledged if response.status == 201 else self.failed).add(name)
                    if response.status != 201:
                        return
            except (aiohttp.ClientError, ConnectionError):
                self.failed.add(name)
                return

    async def crash_run(self, run: int) -> set[str]:
        """Uploads until a SIGKILL; returns what lies outside the index right after it."""
        server = ServerProcess(self.env)
        async with aiohttp.ClientSession() as http:
            headers = await self.sign_in(http, server.base)
            if run == 0:
                for url, payload in (
                    ("/api/admin/containers", {"name": WARD}),
                    (f"/api/admin/containers/{WARD}/folders", {"name": FOLDER}),
                ):
                    async with http.post(server.base + url, json=payload, headers=headers):
                        pass
            clients = [
                asyncio.create_task(self.client(http, server.base, headers, who, run))
                for who in range(4)
            ]
            await asyncio.sleep(random.uniform(0.5, 2.5))
            os.kill(server.pid, signal.SIGKILL)
            server.process.wait()
            await asyncio.gather(*clients)
        return await self.outside()

    async def verify(self) -> dict[str, Any]:
        server = ServerProcess(self.env)
        try:
            started = time.monotonic()
            while await self.outside() or await self.pending():
                if time.monotonic() - started > 20:
                    break
                await asyncio.sleep(0.2)
            swept_in = time.monotonic() - started
            async with aiohttp.ClientSession() as http:
                headers = await self.sign_in(http, server.base)
                base = f"{server.base}/api/blobs/{WARD}/{FOLDER}"
                async with http.get(base, headers=headers) as response:
                    listed = {
                        b["name"]: b["contentLength"] for b in (await response.json())["blobs"]
                    }
                intact = 0
                for name in sorted(self.acknowledged):
                    if listed.get(name) != self.sizes[name]:
                        continue
                    async with http.get(f"{base}/{name}/url", headers=headers) as response:
                        link = (await response.json())["url"]
                    async with http.get(server.base + link) as response:
                        data = await response.read()
                    intact += data == content(name, self.sizes[name])
                committed_failed = {n for n in self.failed if n in listed}
                refused = 0
                for name in sorted(self.failed - committed_failed):
                    async with http.post(
                        base,
                        data=body(name, b"retry"),
                        headers={
                            **headers,
                            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                        },
                    ) as response:
                        refused += response.status == 409
            return {
                "intact": intact,
                "committed_failed": len(committed_failed),
                "retries_refused_409": refused,
                "outside_after_restart": len(await self.outside()),
                "seconds_to_clean": round(swept_in, 2),
            }
        finally:
            server.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["local", "s3"], default="local")
    parser.add_argument("--crashes", type=int, default=10)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    random.seed(23)
    root = Path(tempfile.mkdtemp(prefix="crash-bench-"))
    async with contextlib.AsyncExitStack() as stack:
        database_url = f"sqlite://{root}/bff.sqlite3"
        if args.postgres:
            database_url = await stack.enter_async_context(throwaway_postgres("bff_crash_bench"))
        env = local_env(
            root,
            database_url=database_url,
            admin_password=PASSWORD,
            upload_staging_grace_seconds="1",
            upload_sweep_seconds="0.5",
        )
        if args.backend == "local":
            storage = root / "storage"

            async def objects() -> set[str]:
                return {str(p.relative_to(storage)) for p in storage.rglob("*") if p.is_file()}
        else:
            for key, value in (("AWS_ACCESS_KEY_ID", "x"), ("AWS_SECRET_ACCESS_KEY", "x")):
                os.environ.setdefault(key, value)
            moto, endpoint = start_moto()
            stack.callback(kill_group, moto)
            s3 = await stack.enter_async_context(
                get_session().create_client("s3", endpoint_url=endpoint, region_name="us-east-1")
            )
            await s3.create_bucket(Bucket="crash-bench")
            env = {
                **os.environ,
                **env,
                "BFF_STORAGE_URL": f"s3://crash-bench?endpoint_url={endpoint}&region=us-east-1",
            }

            async def objects() -> set[str]:
                keys: set[str] = set()
                async for page in s3.get_paginator("list_objects_v2").paginate(
                    Bucket="crash-bench"
                ):
                    keys |= {
                        e["Key"] for e in page.get("Contents", []) if not e["Key"].endswith("/")
                    }
                uploads = await s3.list_multipart_uploads(Bucket="crash-bench")
                return keys | {f"multipart:{u['Key']}" for u in uploads.get("Uploads", [])}

        bench = Bench(env, database_url, objects)
        left_at_crash: set[str] = set()
        for run in range(args.crashes):
            left_at_crash |= await bench.crash_run(run)
        figures = await bench.verify()
    database = "PostgreSQL" if args.postgres else "SQLite"
    print(f"{args.crashes} SIGKILLs during uploads by 4 clients ({args.backend}, {database})")
    print(f"  uploads acknowledged (201):              {len(bench.acknowledged)}")
    print(f"  acknowledged and intact after restart:   {figures['intact']}")
    print(f"  uploads failed (no answer):              {len(bench.failed)}")
    print(f"  failed but committed (listed, whole):    {figures['committed_failed']}")
    print(f"  objects outside the index at the crashes: {len(left_at_crash)} (none visible)")
    print(f"  objects outside the index after restart: {figures['outside_after_restart']}")
    print(f"  seconds until the sweep had cleaned:     {figures['seconds_to_clean']}")
    print(f"  retries of failed names refused (409):   {figures['retries_refused_409']}")


if __name__ == "__main__":
    asyncio.run(main())
