"""A real clamd for the scanning tests (tools/testclamd.py): one for the session, with a
StreamMaxLength of 8 MB; `scanner_down` stops it for a test and starts it again after."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
