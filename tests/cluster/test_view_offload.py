"""BFF_VIEW_OFFLOAD=nginx through real nginx and the operator's template: the BFF decides and
audits, nginx sends the bytes from the storage directory with the BFF's headers, and nothing
in the storage directory is reachable without the BFF's decision."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest

from tests import samples
from tests.cluster.conftest import ADMIN_PASSWORD, call
from tests.cluster.test_cluster import _form, _setup
from tests.files.conftest import WITH_HTML
from tools.devcluster import Cluster

# A name that needs every kind of encoding: spaces, '%', '?', '#', ';', quotes, non-ASCII.
NAME = 'Scan 100% ok? #2; "ré" 検査.pdf'
# A real PDF (the content checks refuse other bytes under a .pdf name) of about 300 KB.
CONTENT = samples.pdf(" ".join(os.urandom(4).hex() for _ in range(33_000)))


@pytest.fixture(scope="module")
def offload_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One instance on local storage behind nginx, offloading views to it. SQLite, unless the
    run is on PostgreSQL (then a throwaway database of its own)."""
    root = tmp_path_factory.mktemp("offload")
    database = f"sqlite://{root}/bff.sqlite3"
    cleanup = None
    if os.environ.get("BFF_TEST_DATABASE") == "postgres":
        import subprocess

        name = "bff_offload_test_" + secrets.token_hex(4)
        pg = ["-h", "127.0.0.1", "-U", "postgres"]
        subprocess.run(["createdb", *pg, name], check=True)  # noqa: S603, S607
        database = f"postgres://postgres@127.0.0.1:5432/{name}"

        def cleanup() -> None:
            subprocess.run(["dropdb", *pg, "--force", name], check=False)  # noqa: S603, S607

    running = Cluster(
        root=root,
        database_url=database,
        redis_url="",
        storage_url=f"file://{root}/storage",
        instances=1,
        # Web pages allowed: a page's offloaded download is tested (the default refuses it).
        settings={
            "admin_password": ADMIN_PASSWORD,
            "view_offload": "nginx",
            "allowed_types": WITH_HTML,
        },
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()
        if cleanup is not None:
            cleanup()


async def test_nginx_sends_an_offloaded_view_with_the_bffs_headers(
    offload_cluster: Cluster,
) -> None:
    cluster = offload_cluster
    async with aiohttp.ClientSession() as http:
        admin, _, folder = await _setup(http, cluster)
        await call(http, "POST", cluster.base + folder, admin, data=_form(NAME, CONTENT))
        link = (
            await call(http, "GET", f"{cluster.base}{folder}/{quote(NAME, safe='')}/url", admin)
        )["url"]
        async with http.get(cluster.base + link) as whole:
            body = await whole.read()
            assert whole.status == 200
            headers = whole.headers
        assert hashlib.sha256(body).digest() == hashlib.sha256(CONTENT).digest()
        assert "X-Accel-Redirect" not in headers
        assert headers["Content-Type"] == "application/pdf"
        assert headers["Content-Length"] == str(len(CONTENT))
        assert headers["Content-Disposition"].startswith("inline; filename=")
        assert "filename*=UTF-8''" + quote(NAME, safe="") in headers["Content-Disposition"]
        assert headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "no-store" in headers["Cache-Control"]
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["Accept-Ranges"] == "bytes"

        async with http.get(cluster.base + link, headers={"Range": "bytes=1000-1999"}) as part:
            assert part.status == 206
            assert part.headers["Content-Range"] == f"bytes 1000-1999/{len(CONTENT)}"
            assert await part.read() == CONTENT[1000:2000]
            assert part.headers["Content-Security-Policy"].startswith("default-src 'none'")

        # A type shown as a download keeps the sandbox too.
        await call(http, "POST", cluster.base + folder, admin, data=_form("page.html", b"<b>x"))
        async with http.get(
            f"{cluster.base}{folder}/page.html/view", headers={"x-auth-token": admin}
        ) as html:
            assert await html.read() == b"<b>x"
            assert html.headers["Content-Disposition"].startswith("attachment;")
            assert html.headers["Content-Security-Policy"].endswith("; sandbox")

        # The BFF still decides: no link, no file; every view audited.
        async with http.get(f"{cluster.base}{folder}/{quote(NAME, safe='')}/view") as refused:
            assert refused.status == 401
            assert await refused.read() != CONTENT
        logs = await call(http, "GET", f"{cluster.base}/api/blobs/audit?operation=file_view", admin)
        assert sum(entry["blobName"] == NAME for entry in logs["auditLogs"]) == 2


async def test_the_storage_directory_is_reachable_only_through_the_bff(
    offload_cluster: Cluster,
) -> None:
    cluster = offload_cluster
    storage = Path(cluster.env()["BFF_STORAGE_URL"].removeprefix("file://"))
    async with aiohttp.ClientSession() as http:
        admin, container, folder = await _setup(http, cluster)
        await call(http, "POST", cluster.base + folder, admin, data=_form("a.txt", b"secret"))
        reserved = storage / container / "patient-1" / ".bff-versions"
        reserved.mkdir(parents=True)
        (reserved / "old.txt").write_bytes(b"old secret")
        for path in (
            f"/_bff_storage/{container}/patient-1/a.txt",
            f"/_bff_storage/{container}/patient-1/.bff-versions/old.txt",
            f"/_bff_storage/{container}/patient-1/",
            "/_bff_storage/",
            f"/_bff_storage/../storage/{container}/patient-1/a.txt",
            f"/x/..%2F_bff_storage/{container}/patient-1/a.txt",
        ):
            async with http.get(cluster.base + path, headers={"x-auth-token": admin}) as response:
                body = await response.read()
                assert b"secret" not in body, path
                # nginx resolves '..' first: what is left may be a web app page (its own 404).
                page = response.content_type == "text/html" and b"<!doctype html>" in body.lower()
                assert response.status >= 400 or page, (path, response.status)
        # Even a forged X-Accel-Redirect in the request is only a request header.
        async with http.get(
            f"{cluster.base}/api/health",
            headers={"X-Accel-Redirect": f"/_bff_storage/{container}/patient-1/a.txt"},
        ) as health:
            assert b"secret" not in await health.read()
