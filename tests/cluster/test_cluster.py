"""Two instances behind nginx: nothing assumes one process, and one crashing loses nothing."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
import re
import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import socketio

from bff.web import DIST, IMMUTABLE
from tests.cluster.conftest import ADMIN_PASSWORD, call, sign_in
from tools.devcluster import Cluster
from tools.devserver import RedisProcess


async def _setup(http: aiohttp.ClientSession, cluster: Cluster) -> tuple[str, str, str]:
    """An admin session and a patient folder of this test's own: (token, container, folder
    path under /api/blobs)."""
    admin = await sign_in(http, cluster.base, "admin", ADMIN_PASSWORD)
    container = f"ward-{secrets.token_hex(4)}"
    await call(
        http, "POST", f"{cluster.base}/api/admin/containers", admin, 201, json={"name": container}
    )
    await call(
        http,
        "POST",
        f"{cluster.base}/api/admin/containers/{container}/folders",
        admin,
        201,
        json={"name": "patient-1"},
    )
    return admin, container, f"/api/blobs/{container}/patient-1"


def _form(name: str, data: bytes) -> aiohttp.FormData:
    form = aiohttp.FormData()
    form.add_field("filename", name)
    form.add_field("file", data, filename=name)
    return form


async def test_login_throttle_counts_across_instances(cluster: Cluster) -> None:
    async with aiohttp.ClientSession() as http:
        bad = {"username": f"nobody-{secrets.token_hex(4)}", "password": "wrong password"}
        a, b = cluster.instance_base(0), cluster.instance_base(1)
        for base in (a, b, a):
            await call(http, "POST", f"{base}/api/auth/login", expect=401, json=bad)
        await call(http, "POST", f"{b}/api/auth/login", expect=429, json=bad)


async def test_sessions_links_and_grants_work_on_any_instance(cluster: Cluster) -> None:
    a, b = cluster.instance_base(0), cluster.instance_base(1)
    async with aiohttp.ClientSession() as http:
        admin, container, folder = await _setup(http, cluster)
        await call(http, "POST", a + folder, admin, data=_form("any.txt", b"anywhere"))
        link = await call(http, "GET", f"{a}{folder}/any.txt/url", admin)
        assert await call(http, "GET", b + link["url"]) == b"anywhere"  # signed on A, used on B
        chip = {"secureChipId": f"chip-{container}"}
        token = await call(http, "POST", f"{a}/patients/admin/register", admin, json=chip)
        await call(
            http,
            "POST",
            f"{b}/patients/admin/assign",
            admin,
            json={
                "tokenId": token["smartTokenId"],
                "containerName": container,
                "folderName": "patient-1",
                "patientName": "Cluster Patient",
            },
        )
        path = token["verificationUrl"].removeprefix(cluster.base)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as responder:
            async with responder.get(a + path, allow_redirects=False) as scanned:
                assert scanned.status == 303
            view = await call(responder, "GET", f"{b}/api/emergency/session")  # grant from A
            assert view["patientName"] == "Cluster Patient"
        staff = await sign_in(http, a, "admin", ADMIN_PASSWORD)
        await call(http, "GET", f"{a}/api/auth/me", staff)  # now in A's session cache
        await call(http, "POST", f"{b}/api/auth/logout", staff)
        # Ended everywhere: B tells A through Redis (well before A's cache would expire).
        async with asyncio.timeout(3):
            while True:
                async with http.get(f"{a}/api/auth/me", headers={"x-auth-token": staff}) as me:
                    if me.status == 401:
                        break
                await asyncio.sleep(0.02)


async def test_the_proxy_passes_the_real_client_and_drops_forged_ones(cluster: Cluster) -> None:
    """The client connects from 127.0.0.2 and nginx to the instances from 127.0.0.1: the
    audit log must record 127.0.0.2, neither nginx's own address nor a forged one."""
    forger = f"forger-{secrets.token_hex(4)}"
    client = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=client) as http:
        await call(
            http,
            "POST",
            f"{cluster.base}/api/auth/login",
            expect=401,
            json={"username": forger, "password": "not the password"},
            headers={"X-Forwarded-For": "203.0.113.66"},
        )
    async with aiohttp.ClientSession() as http:
        admin = await sign_in(http, cluster.base, "admin", ADMIN_PASSWORD)
        logs = await call(
            http, "GET", f"{cluster.base}/api/blobs/audit?operation=login_failed", admin
        )
    [entry] = [e for e in logs["auditLogs"] if e["name"] == forger]
    assert entry["clientAddress"] == "127.0.0.2"


class Ears:
    """A Socket.IO client through nginx that reconnects by itself."""

    def __init__(self) -> None:
        self.client = socketio.AsyncClient(reconnection=True, reconnection_delay=0.2)
        self.names: list[str] = []
        self.client.on("file:uploaded", self._heard)

    async def _heard(self, data: dict[str, Any]) -> None:
        self.names.append(data["name"])

    async def heard(self, name: str, within: float = 10) -> bool:
        async with asyncio.timeout(within):
            while name not in self.names:  # noqa: ASYNC110 - polling a list the client fills
                await asyncio.sleep(0.05)
        return True


async def _bucket_and_index(cluster: Cluster, folder_path: str) -> tuple[set[str], set[str]]:
    """A folder's objects in the bucket (with anything staged or half-uploaded anywhere) and
    what the index lists of it, with pending uploads, as sets of names."""
    import asyncpg  # type: ignore[import-untyped]
    from aiobotocore.session import get_session

    parts = urlsplit(cluster.storage_url)
    endpoint = parse_qs(parts.query)["endpoint_url"][0]
    async with get_session().create_client(
        "s3", endpoint_url=endpoint, region_name="us-east-1"
    ) as s3:
        listed = await s3.list_objects_v2(Bucket=parts.hostname, Prefix="records/")
        uploads = await s3.list_multipart_uploads(Bucket=parts.hostname)
    keys = [e["Key"].removeprefix("records/") for e in listed.get("Contents", [])]
    objects = {k.removeprefix(folder_path + "/") for k in keys if k.startswith(folder_path + "/")}
    objects.discard("")  # the folder's marker
    objects |= {k for k in keys if k.startswith(".bff-staging/")}
    objects |= {f"multipart:{u['Key']}" for u in uploads.get("Uploads", [])}
    container, folder = folder_path.split("/")
    conn = await asyncpg.connect(cluster.database_url)
    try:
        rows = await conn.fetch(
            "SELECT x.name FROM files x JOIN folders f ON f.id = x.folder_id JOIN containers c "
            "ON c.id = f.container_id WHERE c.name = $1 AND f.name = $2",
            container,
            folder,
        )
        pending = await conn.fetch("SELECT staging_key FROM pending_uploads")
    finally:
        await conn.close()
    return objects, {r["name"] for r in rows} | {f"pending:{r[0]}" for r in pending}


async def _settled(cluster: Cluster, folder_path: str, seconds: float = 30) -> bool:
    """Whether the bucket and the index agree within seconds (the sweep's grace is 2 s)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        objects, indexed = await _bucket_and_index(cluster, folder_path)
        if objects == indexed:
            return True
        if asyncio.get_running_loop().time() > deadline:
            print("bucket versus index:", objects ^ indexed)
            return False
        await asyncio.sleep(0.3)


async def test_metrics_are_refused_through_the_proxy_and_served_to_a_local_scraper(
    cluster: Cluster,
) -> None:
    """nginx (config/nginx/bff.conf.template) connects from 127.0.0.1, BFF_METRICS_ALLOW's
    default, and the instances trust it for the client's address; a client on this very
    machine going through it is still refused. Prometheus asks each instance directly."""
    async with aiohttp.ClientSession() as http:
        refused = await call(http, "GET", f"{cluster.base}/metrics", expect=403)
        assert refused == {"message": "You don't have permission to do this."}
        await call(http, "GET", f"{cluster.base}/api/health/live")
        for index in range(cluster.instances):
            text = (await call(http, "GET", f"{cluster.instance_base(index)}/metrics")).decode()
            assert "bff_http_requests_total" in text


async def test_a_crashed_instance_loses_no_acknowledged_upload(cluster: Cluster) -> None:
    async with aiohttp.ClientSession() as http:
        admin, _, folder = await _setup(http, cluster)
        ears = [Ears() for _ in range(4)]
        for ear in ears:  # nginx spreads them over both instances
            await ear.client.connect(cluster.base, auth={"token": admin}, transports=["websocket"])
        # Text (hex digits): an upload must be of a type the content checks accept.
        payloads = {f"crash-{n:03d}.bin": os.urandom(750_000 + n).hex().encode() for n in range(40)}
        outcomes: dict[str, int] = {}
        step = itertools.count()  # orders starts, answers and the kill
        started: dict[str, int] = {}
        answered: dict[str, int] = {}

        async def upload(name: str) -> None:
            started[name] = next(step)
            try:
                async with http.post(
                    cluster.base + folder,
                    data=_form(name, payloads[name]),
                    headers={"x-auth-token": admin},
                ) as response:
                    outcomes[name] = response.status
            except aiohttp.ClientError:
                outcomes[name] = 0
            answered[name] = next(step)

        names = sorted(payloads)
        gate = asyncio.Semaphore(4)

        async def limited(name: str) -> None:
            async with gate:
                await upload(name)

        stream = asyncio.gather(*(limited(n) for n in names))
        while len(outcomes) < 12:  # noqa: ASYNC110 - waiting for the stream to get going
            await asyncio.sleep(0.01)
        killed = next(step)
        cluster.kill(0)  # while uploads are in flight on it
        await stream
        try:
            acknowledged = [n for n in names if outcomes[n] == 201]
            failed = [n for n in names if outcomes[n] != 201]
            print("uploads that failed:", {n: outcomes[n] for n in failed})
            assert any(started[n] < killed < answered[n] for n in names), "none was in flight"
            # Before the kill every upload succeeds. Only uploads nginx had already sent to the
            # killed instance fail (it never sends an upload twice); at its first failure
            # nginx marks the instance down, so every upload started after a failure was
            # answered succeeds on the survivor.
            assert all(outcomes[n] == 201 for n in names if answered[n] < killed), outcomes
            first_failure = min((answered[n] for n in failed), default=killed)
            assert all(outcomes[n] == 201 for n in names if started[n] > first_failure), outcomes
            listing = await call(http, "GET", cluster.base + folder, admin)
            listed = {b["name"]: b["contentLength"] for b in listing["blobs"]}
            for name in acknowledged:
                assert listed.get(name) == len(payloads[name]), name
                link = await call(http, "GET", f"{cluster.base}{folder}/{name}/url", admin)
                body = await call(http, "GET", cluster.base + link["url"])
                assert hashlib.sha256(body).digest() == hashlib.sha256(payloads[name]).digest()
            for name, size in listed.items():  # whatever is listed is whole, never partial
                if name in payloads:
                    assert size == len(payloads[name]), name
            # Bucket versus index: once the sweep has run, every object of the folder is a
            # listed file (the failed uploads left nothing), and their names are free again.
            assert await _settled(cluster, folder.removeprefix("/api/blobs/")), "orphans left"
            for name in (n for n in failed if n not in listed):
                retry = await call(
                    http, "POST", cluster.base + folder, admin, data=_form(name, b"y")
                )
                assert retry["blob"]["name"] == name
            # The clients reconnected to the surviving instance and still hear uploads.
            await call(http, "POST", cluster.base + folder, admin, data=_form("after.bin", b"x"))
            for ear in ears:
                assert await ear.heard("after.bin")
        finally:
            for ear in ears:
                await ear.client.disconnect()
            cluster.start_instance(0)


async def test_redis_going_away_and_coming_back(cluster: Cluster, redis: RedisProcess) -> None:
    async with aiohttp.ClientSession() as http:
        admin, _, folder = await _setup(http, cluster)
        ear = Ears()
        await ear.client.connect(
            cluster.instance_base(1), auth={"token": admin}, transports=["websocket"]
        )
        try:
            redis.stop()
            a = cluster.instance_base(0)
            for n in range(3):  # HTTP keeps working without Redis
                await call(http, "POST", a + folder, admin, data=_form(f"no-redis-{n}.txt", b"x"))
            await call(http, "GET", f"{a}/api/users/dashboard", admin)
            redis.start()
            for attempt in range(60):  # live events resume once Redis is back
                name = f"redis-back-{attempt}.txt"
                await call(http, "POST", a + folder, admin, data=_form(name, b"x"))
                await asyncio.sleep(0.5)
                if name in ear.names:
                    break
            else:
                raise AssertionError("live events did not resume after Redis returned")
        finally:
            await ear.client.disconnect()


async def test_the_web_app_arrives_compressed_through_the_proxy(cluster: Cluster) -> None:
    """nginx passes Accept-Encoding on and the instance's precompressed copy back unchanged
    (bff/web.py chooses it): brotli or gzip as asked, with Vary, through the real template."""
    index = (DIST / "index.html").read_text()
    entry = re.search(r'src="/(assets/index-[^"]+\.js)"', index)
    assert entry is not None, "the web app is built (make frontend)"
    bundle = entry.group(1)
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        for accept, encoding, suffix in (
            ("gzip, deflate, br, zstd", "br", ".br"),
            ("gzip", "gzip", ".gz"),
            ("identity", None, ""),
        ):
            url = f"{cluster.base}/{bundle}"
            async with http.get(url, headers={"Accept-Encoding": accept}) as response:
                assert response.status == 200
                assert response.headers.get("Content-Encoding") == encoding, accept
                assert "Accept-Encoding" in response.headers["Vary"]
                assert response.headers["Cache-Control"] == IMMUTABLE
                assert await response.read() == (DIST / f"{bundle}{suffix}").read_bytes()
