"""The built web app's files in the encoding each request prefers (bff/web.py): the build's
brotli and gzip copies by Accept-Encoding, with Vary, per-encoding length and ETag, Range,
HEAD, and the file itself when a copy is missing or nothing compressed is acceptable; the build
of BFF_WEB_DIR when it is set."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest
from quart.testing import QuartClient as Client

from bff import web
from bff.app import CONTENT_SECURITY_POLICY
from config.settings import SettingsError
from tests.conftest import make_settings, started_app

BUNDLE = "assets/index-TEST1234.js"
PLAIN_ONLY = "assets/tiny-TEST1234.js"  # a file the build did not compress
SOURCE = b"export const answer = 42;\n" * 400
BROTLI = b"\x8b\x00\x80brotli stand-in\x03"  # the bytes on disk are sent as they are


@pytest.fixture
def dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built web app of known files, with .gz and .br copies beside the bundle only."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>Patient Records</title>")
    (tmp_path / BUNDLE).write_bytes(SOURCE)
    (tmp_path / f"{BUNDLE}.gz").write_bytes(gzip.compress(SOURCE))
    (tmp_path / f"{BUNDLE}.br").write_bytes(BROTLI)
    (tmp_path / PLAIN_ONLY).write_bytes(b"export {};\n")
    monkeypatch.setattr(web, "DIST", tmp_path)
    return tmp_path


async def _get(client: Client, path: str, accept: str | None, **headers: str):  # type: ignore[no-untyped-def]
    if accept is not None:
        headers["Accept-Encoding"] = accept
    return await client.get(f"/{path}", headers=headers)


@pytest.mark.parametrize(
    ("accept", "encoding"),
    [
        ("gzip, deflate, br, zstd", "br"),  # Chromium's: brotli preferred
        ("br;q=1.0, gzip;q=1.0", "br"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),  # quality values decide before preference
        ("gzip, br;q=0", "gzip"),  # q=0 refuses brotli
        ("gzip", "gzip"),
        ("*", "br"),
        ("br;q=0, gzip;q=0", None),
        ("identity", None),
        ("deflate", None),
        (None, None),
    ],
)
async def test_the_bundle_comes_in_the_preferred_encoding(
    client: Client, dist: Path, accept: str | None, encoding: str | None
) -> None:
    response = await _get(client, BUNDLE, accept)
    assert response.status_code == 200
    body = await response.get_data()
    expected = {"br": BROTLI, "gzip": gzip.compress(SOURCE), None: SOURCE}[encoding]
    if encoding == "gzip":  # gzip embeds a time: compare what it decodes to
        assert gzip.decompress(body) == SOURCE
        assert len(body) == (dist / f"{BUNDLE}.gz").stat().st_size
    else:
        assert body == expected
    assert response.headers.get("Content-Encoding") == encoding
    assert response.headers["Content-Length"] == str(len(body))
    assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "Accept-Encoding" in response.headers["Vary"]
    # The cache and security headers of every built file stay.
    assert response.headers["Cache-Control"] == web.IMMUTABLE
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["X-Content-Type-Options"] == "nosniff"


async def test_each_encoding_has_its_own_etag_and_answers_its_conditional_request(
    client: Client, dist: Path
) -> None:
    tags = {}
    for accept in ("br", "gzip", "identity"):
        response = await _get(client, BUNDLE, accept)
        tags[accept] = response.headers["ETag"]
        again = await _get(client, BUNDLE, accept, **{"If-None-Match": tags[accept]})
        assert again.status_code == 304, accept
        assert "Accept-Encoding" in again.headers["Vary"]
    assert len(set(tags.values())) == 3
    # The brotli copy's tag does not validate the gzip representation.
    other = await _get(client, BUNDLE, "gzip", **{"If-None-Match": tags["br"]})
    assert other.status_code == 200
    assert other.headers["Content-Encoding"] == "gzip"


async def test_a_range_applies_to_the_encoding_sent(client: Client, dist: Path) -> None:
    compressed = (dist / f"{BUNDLE}.gz").read_bytes()
    response = await _get(client, BUNDLE, "gzip", Range="bytes=0-9")
    assert response.status_code == 206
    assert response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Content-Range"] == f"bytes 0-9/{len(compressed)}"
    assert response.headers["Content-Length"] == "10"
    assert await response.get_data() == compressed[:10]
    plain = await _get(client, BUNDLE, "identity", Range="bytes=10-19")
    assert plain.status_code == 206
    assert "Content-Encoding" not in plain.headers
    assert plain.headers["Content-Range"] == f"bytes 10-19/{len(SOURCE)}"
    assert await plain.get_data() == SOURCE[10:20]
    beyond = await _get(client, BUNDLE, "br", Range=f"bytes={len(BROTLI) + 5}-")
    assert beyond.status_code == 416


async def test_head_answers_the_headers_of_the_encoding_get_would_send(
    client: Client, dist: Path
) -> None:
    # (The ASGI server, not the app, leaves out a HEAD answer's body.)
    response = await client.head(f"/{BUNDLE}", headers={"Accept-Encoding": "gzip, br"})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "br"
    assert response.headers["Content-Length"] == str(len(BROTLI))
    assert "Accept-Encoding" in response.headers["Vary"]
    assert response.headers["ETag"] == (await _get(client, BUNDLE, "br")).headers["ETag"]


async def test_a_file_without_compressed_copies_is_sent_as_it_is(
    client: Client, dist: Path
) -> None:
    response = await _get(client, PLAIN_ONLY, "gzip, deflate, br")
    assert response.status_code == 200
    assert "Content-Encoding" not in response.headers
    assert await response.get_data() == b"export {};\n"
    assert "Accept-Encoding" in response.headers["Vary"]
    # Only the brotli copy missing: gzip is the next acceptable one.
    (dist / f"{BUNDLE}.br").unlink()
    fallback = await _get(client, BUNDLE, "gzip, deflate, br")
    assert fallback.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(await fallback.get_data()) == SOURCE


async def test_compressed_copies_are_not_files_of_their_own_kind(
    client: Client, dist: Path
) -> None:
    """Asked for by name, a copy is an opaque file: never labelled as the script it holds."""
    response = await _get(client, f"{BUNDLE}.gz", "identity")
    assert response.status_code == 200
    assert "javascript" not in response.headers["Content-Type"]
    assert zlib.decompress(await response.get_data(), 16 + zlib.MAX_WBITS) == SOURCE


async def test_the_web_app_comes_from_bff_web_dir_when_set(
    database_url: str, run_dir: Path, tmp_path: Path, dist: Path
) -> None:
    """A server given BFF_WEB_DIR serves that build, never frontend/dist's (here `dist`), so a
    bench's swapped index.html or a rebuild there reaches no other server's pages."""
    own = tmp_path / "own-build"
    (own / "assets").mkdir(parents=True)
    (own / "index.html").write_text("<!doctype html><title>Another build</title>")
    (own / "assets/index-OWN12345.js").write_bytes(b"export const own = 1;\n")
    settings = make_settings(database_url, run_dir, web_dir=own)
    async with started_app(settings) as app:
        client = app.test_client()
        for page in ("/", "/intake", "/index.html"):
            assert await (await client.get(page)).get_data() == (own / "index.html").read_bytes()
        response = await _get(client, "assets/index-OWN12345.js", None)
        assert response.status_code == 200
        assert await response.get_data() == b"export const own = 1;\n"
        # frontend/dist's files are not this server's.
        assert (await _get(client, BUNDLE, None)).status_code == 404


async def test_an_empty_bff_web_dir_serves_frontend_dist_never_the_working_directory(
    database_url: str,
    run_dir: Path,
    dist: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BFF_WEB_DIR= (empty) means frontend/dist, as the settings' documentation says: read as
    Path('.') it served the working directory (the checkout's var/: keys, database) to anyone."""
    monkeypatch.setenv("BFF_WEB_DIR", "")
    secret = tmp_path / "cwd" / "var" / "secret_key"
    secret.parent.mkdir(parents=True)
    secret.write_text("TOPSECRET")
    monkeypatch.chdir(tmp_path / "cwd")
    settings = make_settings(database_url, run_dir)
    assert settings.web_dir is None
    async with started_app(settings) as app:
        client = app.test_client()
        assert await (await client.get("/")).get_data() == (dist / "index.html").read_bytes()
        answer = await (await client.get("/var/secret_key")).get_data()
        assert b"TOPSECRET" not in answer


@pytest.mark.parametrize("where", ["relative", "holds-var", "inside-var", "is-var"])
def test_bff_web_dir_must_be_an_absolute_folder_apart_from_the_var_dir(
    database_url: str, run_dir: Path, where: str
) -> None:
    """A web folder that would serve the keys and the database is refused at start-up."""
    web_dir = {
        "relative": Path("frontend/dist"),
        "holds-var": run_dir.parent,
        "inside-var": run_dir / "web",
        "is-var": run_dir,
    }[where]
    with pytest.raises(SettingsError, match="BFF_WEB_DIR"):
        make_settings(database_url, run_dir, web_dir=web_dir)
