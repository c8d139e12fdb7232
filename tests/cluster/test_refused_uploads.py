"""Uploads refused before their body is read, through nginx from the template, by a client that
sends whole bodies (httpx, as browsers do): each gets its own status and message, nginx never
counts an instance as failed (no 502, no "no live upstreams"), nothing hangs, another client
is served all along, and the instances stop promptly afterwards (issue 48, item 1)."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator

import boto3
import httpx
import pytest

from bff.shutdown import RESTARTING
from tests.cluster.conftest import ADMIN_PASSWORD, started_cluster
from tests.conftest import REGION
from tests.early_answer import post_streaming
from tools.devcluster import Cluster
from tools.devserver import RedisProcess

MB = 1024 * 1024
LIMIT_MB = 30  # BFF_MAX_UPLOAD_MB: nginx lets bodies of up to 31 MB through
EACH = 20  # refused uploads of each kind
AT_ONCE = 4
UPLOAD_SECONDS = 60  # no refused upload may take longer (nginx's proxy_read_timeout is 300 s)
STOP_SECONDS = 10  # graceful_timeout is 20 s: an instance held by a stuck connection waits it out


@pytest.fixture(scope="module")
def bucket(s3_endpoint: str) -> str:
    name = "refusals-" + secrets.token_hex(4)
    boto3.client("s3", endpoint_url=s3_endpoint, region_name=REGION).create_bucket(Bucket=name)
    return name


@pytest.fixture(scope="module")
def refusing(
    tmp_path_factory: pytest.TempPathFactory,
    cluster_db: str,
    redis: RedisProcess,
    s3_endpoint: str,
    bucket: str,
) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("refusals")
    settings = {"max_upload_mb": str(LIMIT_MB)}
    with started_cluster(root, cluster_db, redis, s3_endpoint, settings, bucket=bucket) as running:
        yield running


def _form(size: int) -> tuple[bytes, str]:
    """A multipart form of one file of size bytes, as a browser sends it, and its type."""
    boundary = "----refused" + secrets.token_hex(8)
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nscan.pdf\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode()
    body = head + b"%PDF" + b"x" * (size - 4) + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


class Bystander:
    """Another client, served through nginx all along: its statuses are counted."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token
        self.statuses: Counter[int] = Counter()
        self._stop = asyncio.Event()

    async def run(self) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=30) as http:
            while not self._stop.is_set():
                for path in ("/api/health/live", "/api/auth/me"):
                    try:
                        response = await http.get(path, headers={"x-auth-token": self.token})
                    except httpx.HTTPError:
                        self.statuses[0] += 1  # no answer at all
                    else:
                        self.statuses[response.status_code] += 1
                await asyncio.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()


async def _refused(
    base: str, path: str, body: bytes, kind: str, token: str | None
) -> list[tuple[int, str, float]]:
    """EACH uploads of body to path, AT_ONCE at a time: (status, message, seconds) of each."""
    limit = asyncio.Semaphore(AT_ONCE)
    headers = {"content-type": kind, **({"x-auth-token": token} if token else {})}

    async def one(http: httpx.AsyncClient) -> tuple[int, str, float]:
        async with limit:
            began = time.monotonic()
            try:
                response = await http.post(path, content=body, headers=headers)
            except httpx.HTTPError as exc:  # a broken answer: counted, not raised
                return 0, f"{type(exc).__name__}: {exc}", time.monotonic() - began
            took = time.monotonic() - began
            try:
                message = response.json().get("message", "")
            except ValueError:
                message = response.text[:200]
            return response.status_code, message, took

    timeout = httpx.Timeout(UPLOAD_SECONDS)
    async with httpx.AsyncClient(base_url=base, timeout=timeout) as http:
        return list(await asyncio.gather(*(one(http) for _ in range(EACH))))


async def _sign_in(base: str) -> str:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.post(
            "/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
        )
        assert response.status_code == 200, response.text
        token: str = response.json()["token"]
        await http.post(
            "/api/admin/containers", json={"name": "ward"}, headers={"x-auth-token": token}
        )
        await http.post(
            "/api/admin/containers/ward/folders",
            json={"name": "patient-1"},
            headers={"x-auth-token": token},
        )
        return token


async def test_refused_uploads_keep_every_instance_in_rotation(
    refusing: Cluster, s3_endpoint: str, bucket: str
) -> None:
    admin = await _sign_in(refusing.base)
    within_body, within_kind = _form(LIMIT_MB * MB)
    over, kind = _form(LIMIT_MB * MB + MB // 2)  # declared over the limit, under nginx's
    cases = [
        ("401", "/api/blobs/ward/patient-1", within_body, within_kind, None, 401),
        ("404", "/api/blobs/ward/no-such-patient", within_body, within_kind, admin, 404),
        ("413", "/api/blobs/ward/patient-1", over, kind, admin, 413),
    ]
    bystander = Bystander(refusing.base, admin)
    watching = asyncio.get_running_loop().create_task(bystander.run())
    seen: dict[str, list[tuple[int, str, float]]] = {}
    try:
        for name, path, body, content_type, token, _ in cases:
            seen[name] = await _refused(refusing.base, path, body, content_type, token)
        # Storage refusing writes (here: its bucket gone): the upload's first write fails.
        s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name=REGION)
        for listed in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            s3.delete_object(Bucket=bucket, Key=listed["Key"])
        s3.delete_bucket(Bucket=bucket)
        seen["503"] = await _refused(
            refusing.base, "/api/blobs/ward/patient-1", within_body, within_kind, admin
        )
    finally:
        bystander.stop()
        await watching
    messages = {
        "401": "Authentication required. Please log in.",
        "404": None,
        "413": f"The file is too large. The limit is {LIMIT_MB}MB.",
        "503": "File storage is temporarily unavailable. Please try again shortly.",
    }
    for name, results in seen.items():
        print(name, "slowest answer", round(max(took for _, _, took in results), 2), "s")
        statuses = Counter(status for status, _, _ in results)
        assert statuses == {int(name): EACH}, (name, statuses, results[:3])
        for _, message, took in results:
            assert message, name
            if messages[name] is not None:
                assert message == messages[name], (name, message)
            assert took < UPLOAD_SECONDS, (name, took)
    assert set(bystander.statuses) == {200}, bystander.statuses
    assert "no live upstreams" not in (refusing.root / "nginx" / "error.log").read_text()

    for index, pid in enumerate(refusing.pids()):
        assert pid is not None
        began = time.monotonic()
        refusing.stop_instance(index, STOP_SECONDS)
        stopped = time.monotonic() - began
        print("instance", index, "stopped in", round(stopped, 2), "s")
        assert stopped < STOP_SECONDS, index


async def test_an_upload_cut_off_by_a_stop_is_answered_503_through_nginx(
    refusing: Cluster, s3_endpoint: str, bucket: str
) -> None:
    """SIGTERM while a 30 MB upload arrives at 1 MiB/s (longer than graceful_timeout): the
    client gets 503 with a message and Retry-After through nginx, before the instance exits
    (issue 48, item 3)."""
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name=REGION)
    if bucket not in {b["Name"] for b in s3.list_buckets()["Buckets"]}:
        s3.create_bucket(Bucket=bucket)  # the test above removed it
    for index, pid in enumerate(refusing.pids()):
        if pid is None:
            refusing.start_instance(index)
    admin = await _sign_in(refusing.base)
    body, content_type = _form(LIMIT_MB * MB)
    started = asyncio.Event()

    async def trickle() -> AsyncIterator[bytes]:
        for offset in range(0, len(body), MB):
            yield body[offset : offset + MB]
            started.set()
            await asyncio.sleep(1)

    # Read while the body is sent: httpx sends all 30 MB (30 s) before it reads the answer.
    uploading = asyncio.get_running_loop().create_task(
        post_streaming(
            f"{refusing.base}/api/blobs/ward/patient-1",
            trickle(),
            {"content-type": content_type, "x-auth-token": admin},
        )
    )
    await started.wait()
    await asyncio.sleep(2)  # the upload is under way on one of the instances
    stopping = [
        asyncio.ensure_future(asyncio.to_thread(refusing.stop_instance, index, 30))
        for index in range(len(refusing.pids()))
    ]
    async with asyncio.timeout(UPLOAD_SECONDS):
        response = await uploading
    await asyncio.gather(*stopping)
    assert response.status == 503, response.body
    assert json.loads(response.body)["message"] == RESTARTING
    assert response.headers["retry-after"] == "5"
    errors = (refusing.root / "nginx" / "error.log").read_text()
    assert "no live upstreams" not in errors and "prematurely closed" not in errors, errors
