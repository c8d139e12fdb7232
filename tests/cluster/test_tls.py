"""HTTPS through real nginx and the operator's template with its "#tls " lines switched on (as
docs/operations.md tells an operator): plain HTTP redirects, every answer carries the BFF's
Strict-Transport-Security, offloaded views included."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests import samples
from tests.cluster.conftest import ADMIN_PASSWORD, call
from tests.cluster.test_cluster import _form, _setup
from tools.devcluster import Cluster, Tls
from tools.devserver import free_port

HSTS = "max-age=31536000; includeSubDomains"


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One instance on SQLite and local storage behind nginx with TLS, offloading views."""
    root = tmp_path_factory.mktemp("tls")
    certificate, key = _self_signed(root)
    running = Cluster(
        root=root,
        database_url=f"sqlite://{root}/bff.sqlite3",
        redis_url="",
        storage_url=f"file://{root}/storage",
        instances=1,
        settings={"admin_password": ADMIN_PASSWORD, "view_offload": "nginx"},
        tls=Tls(certificate, key, f"127.0.0.1:{free_port()}"),
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()


async def test_https_through_the_template_sends_hsts_and_plain_http_redirects(
    tls_cluster: Cluster,
) -> None:
    cluster = tls_cluster
    assert cluster.tls is not None and cluster.base.startswith("https://")
    trusted = ssl.create_default_context(cafile=str(cluster.tls.certificate))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trusted)) as http:
        plain = f"http://{cluster.tls.http_listen}/patients/verify/x?s=1"
        async with http.get(plain, allow_redirects=False) as response:
            assert response.status == 301
            assert response.headers["Location"] == "https://127.0.0.1/patients/verify/x?s=1"
            assert "Strict-Transport-Security" not in response.headers  # not over http
        for path in ("/api/health", "/login", "/api/nothing-here"):
            async with http.get(cluster.base + path) as response:
                assert response.headers["Strict-Transport-Security"] == HSTS, path
        admin, _, folder = await _setup(http, cluster)
        scan = samples.pdf("Scan")
        await call(http, "POST", cluster.base + folder, admin, data=_form("scan.pdf", scan))
        async with http.get(
            f"{cluster.base}{folder}/scan.pdf/view", headers={"x-auth-token": admin}
        ) as view:  # sent by nginx from disk (X-Accel-Redirect), with the BFF's headers
            assert await view.read() == scan
            assert "X-Accel-Redirect" not in view.headers
            assert view.headers.getall("Strict-Transport-Security") == [HSTS]
