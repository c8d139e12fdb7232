"""Connections to clamd are a shared, bounded resource (issue 49, review): a client uploading
slowly never holds one (the content is scanned once staged, read back at storage's pace, so
clamd's ReadTimeout never cuts a slow upload's scan), and each process opens at most
BFF_SCAN_CONNECTIONS at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bff.files.models import PendingUpload
from bff.scan import clamd as clamd_client
from bff.scan.service import ScanConfig, scan_content
from storage.base import ReadStream
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tools.testclamd import MARKER, RunningClamd

# clamd drops a stream whose next chunk has not come within its ReadTimeout (seconds).
READ_TIMEOUT = 2


@pytest.fixture(scope="module")
def impatient_clamd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningClamd]:
    directory = tmp_path_factory.mktemp("impatient-clamd")
    with RunningClamd(directory, stream_max_mb=8, read_timeout=READ_TIMEOUT) as running:
        yield running


async def test_an_upload_that_pauses_is_still_scanned(
    database_url: str, run_dir: Path, tmp_path: Path, impatient_clamd: RunningClamd
) -> None:
    """A nurse on a slow link whose upload stalls for longer than clamd's ReadTimeout still
    gets the file saved and scanned (before: the content went on to clamd as it arrived, clamd
    dropped the stalled stream and the upload was refused, 503 "The virus scanner is not
    available"; and every slow upload held one of clamd's connections and temporary files
    for as long as it took)."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        clamd=impatient_clamd.address,
        scan_seconds=10,
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        boundary = "slow-upload"
        headers = {
            **ward.nurse.headers,
            "content-type": f"multipart/form-data; boundary={boundary}",
        }
        async with ward.client.request(ward.url(), method="POST", headers=headers) as slow:
            await slow.send(
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                'filename="letter.txt"\r\nContent-Type: text/plain\r\n\r\n'.encode()
            )
            await slow.send(b"a line of a long letter\n" * 4000)
            async with asyncio.timeout(10):  # the upload is staging its bytes
                while await PendingUpload.all().count() == 0:  # noqa: ASYNC110 - a row
                    await asyncio.sleep(0.01)
            await asyncio.sleep(READ_TIMEOUT + 1.5)  # the link stalls past clamd's patience
            await slow.send(MARKER)
            await slow.send(f"\r\n--{boundary}--\r\n".encode())
            await slow.send_complete()
            answer = await slow.receive()
        assert b"Bff-Test-Marker" in answer, answer  # scanned whole: the marker at its end found


def _content(released: asyncio.Event, started: asyncio.Event) -> ReadStream:
    """A stored content that stalls after its first chunk until released."""

    async def chunks() -> AsyncIterator[bytes]:
        started.set()
        yield b"the first chunk\n"
        await released.wait()

    return ReadStream(chunks(), length=16, size=16, content_type="text/plain")


async def test_one_process_opens_at_most_its_connections(clamd: RunningClamd) -> None:
    """With BFF_SCAN_CONNECTIONS=1, a second scan waits for the first one's place, and past
    BFF_SCAN_SECONDS counts as unavailable; once the first ends, scans go on."""
    config = ScanConfig(address=clamd.address, seconds=0.5, connections=1)
    released, started = asyncio.Event(), asyncio.Event()

    async def stalling() -> ReadStream:
        return _content(released, started)

    async def a_line() -> ReadStream:
        return _content(_set(asyncio.Event()), asyncio.Event())

    first = asyncio.create_task(scan_content(stalling, config))
    await started.wait()
    with pytest.raises(clamd_client.Unavailable, match="every connection to clamd was busy"):
        await scan_content(a_line, config)
    released.set()
    assert (await first).signature is None
    assert (await scan_content(a_line, config)).signature is None


def _set(event: asyncio.Event) -> asyncio.Event:
    event.set()
    return event
