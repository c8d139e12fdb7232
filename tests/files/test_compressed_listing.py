"""A folder's listing (and every larger JSON answer to a staff session) goes gzip-compressed
when the client accepts it (bff/compression.py): 200 files list as about 97 KB of JSON, half a
second of a phone's connection before the folder page draws. Small answers, answers to a
client that does not accept gzip, and streamed answers (a file's view) stay as they are; an
answer without the session header (authorised by a cookie, or public) is never compressed."""

from __future__ import annotations

import gzip
import json

from tests.factories import make_file
from tests.files.conftest import Ward

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


async def _fill(ward: Ward, count: int) -> None:
    for i in range(count):
        await make_file(ward.storage, ward.folder, f"letter-{i:03}.txt", b"Discharge letter " * 20)


async def test_a_large_listing_is_gzip_and_says_the_same(ward: Ward) -> None:
    await _fill(ward, 60)
    plain = await ward.client.get(ward.url(), headers=ward.nurse.headers)
    assert plain.status_code == 200
    assert "Content-Encoding" not in plain.headers  # the client did not ask for it
    expected = await plain.get_json()
    assert len(expected["blobs"]) == 60

    packed = await ward.client.get(ward.url(), headers={**ward.nurse.headers, **GZIP})
    assert packed.status_code == 200
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    body = await packed.get_data(as_text=False)
    assert int(packed.headers["Content-Length"]) == len(body)
    assert json.loads(gzip.decompress(body)) == expected
    assert len(body) * 3 < len(await plain.get_data(as_text=False))
    assert packed.headers["Content-Security-Policy"]  # the usual headers are all there


async def test_small_refused_and_streamed_answers_are_left_alone(ward: Ward) -> None:
    await _fill(ward, 60)
    me = await ward.client.get("/api/auth/me", headers={**ward.nurse.headers, **GZIP})
    assert me.status_code == 200 and "Content-Encoding" not in me.headers  # under 1 KB
    refused = {**ward.nurse.headers, "Accept-Encoding": "gzip;q=0, identity"}
    listing = await ward.client.get(ward.url(), headers=refused)
    assert listing.status_code == 200 and "Content-Encoding" not in listing.headers
    assert len((await listing.get_json())["blobs"]) == 60
    link = await ward.client.get(ward.url("letter-001.txt", "url"), headers=ward.nurse.headers)
    view = await ward.client.get(
        (await link.get_json())["url"], headers={**ward.nurse.headers, **GZIP}
    )
    assert view.status_code == 200
    assert "Content-Encoding" not in view.headers  # a file's bytes stream as stored
    assert await view.get_data(as_text=False) == b"Discharge letter " * 20


async def test_an_answer_without_the_session_header_is_never_compressed(ward: Ward) -> None:
    spec = await ward.client.get("/openapi.json", headers=GZIP)
    assert spec.status_code == 200
    assert len(await spec.get_data(as_text=False)) > 1024
    assert "Content-Encoding" not in spec.headers
