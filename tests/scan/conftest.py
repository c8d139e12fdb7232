"""A real clamd for the scanning tests (tools/testclamd.py): one for the session, with a
StreamMaxLength of 8 MB; `scanner_down` stops it for a test and starts it again after;
`holding_ward` a ward whose uploads are held while it is down."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.files.conftest import Ward
from tools.testclamd import RunningClamd

STREAM_MAX_MB = 8


@pytest.fixture(scope="session")
def clamd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningClamd]:
    with RunningClamd(tmp_path_factory.mktemp("clamd"), stream_max_mb=STREAM_MAX_MB) as running:
        yield running


@pytest.fixture
def scanner_down(clamd: RunningClamd) -> Iterator[RunningClamd]:
    """clamd stopped for the test (its socket gone), started again after it."""
    clamd.stop()
    try:
        yield clamd
    finally:
        clamd.start()


@pytest.fixture
async def holding_ward(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> AsyncIterator[Ward]:
    """A ward on local storage whose uploads are held while clamd is unavailable (a module
    may override it with settings of its own)."""
    from tests.scan.test_scanning import scanned_ward  # the tests' own ward maker

    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_unavailable="hold"
    ) as ward:
        yield ward
