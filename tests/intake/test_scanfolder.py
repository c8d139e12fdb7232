"""The intake's scan folder against a real directory watched by watchfiles: a file is taken
once it has settled, moved to .processed only after the take returned, left in place when the
take fails or never returns (a crash), and links, partial names and too-large files are never
handed over."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from quart import Quart

from bff.intake.incoming import Incoming
from bff.intake.scanfolder import PROCESSED, REFUSED, SCAN_LEASE, ScanFolder, scan_folder_job
from bff.leases import take_lease
from tests.conftest import make_settings

SETTLE = 0.5
ROOT = Path(__file__).resolve().parents[2]
PATIENT_NAME = "Smith-Jane-1970-01-01.pdf"


class Taker:
    """The intake's commit as the folder sees it: records what it was handed (its bytes read
    while the take runs), raising for the first `failures` takes, or waiting for `release`."""

    def __init__(self, folder: Path, failures: int = 0, hold: bool = False) -> None:
        self.folder = folder
        self.failures = failures
        self.hold = hold
        self.release = asyncio.Event()
        self.taken: list[tuple[Incoming, bytes, float]] = []
        self.started = asyncio.Event()
        self.in_place_during_take: list[bool] = []

    async def __call__(self, incoming: Incoming) -> None:
        self.started.set()
        self.in_place_during_take.append((self.folder / incoming.name).exists())
        data = incoming.path.read_bytes()
        if self.hold:
            await self.release.wait()
        if self.failures:
            self.failures -= 1
            raise RuntimeError("commit failed")
        self.taken.append((incoming, data, time.monotonic()))


async def until(check: Callable[[], bool], seconds: float = 8.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def processed(folder: Path, name: str) -> Path:
    return folder / PROCESSED / datetime.now(UTC).strftime("%Y-%m-%d") / name


@contextlib.asynccontextmanager
async def watching(folder: ScanFolder) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.get_running_loop().create_task(folder.watch())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def scan_folder(
    path: Path, take: Callable[[Incoming], Awaitable[None]], **options: float
) -> ScanFolder:
    values = {"max_bytes": 10_000_000, "settle_seconds": SETTLE, "retry_seconds": 0.3}
    values.update(options)
    return ScanFolder(
        path,
        take,
        max_bytes=int(values["max_bytes"]),
        settle_seconds=values["settle_seconds"],
        retry_seconds=values["retry_seconds"],
    )


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    folder = tmp_path / "scans"
    folder.mkdir()
    return folder


async def test_a_file_written_slowly_is_taken_once_after_it_settles(inbox: Path) -> None:
    take = Taker(inbox)
    pieces = [b"%PDF-1.7 part one\n", b"part two\n" * 1000, b"part three\n", b"%%EOF\n"]
    async with watching(scan_folder(inbox, take)):
        path = inbox / PATIENT_NAME
        with path.open("wb") as out:
            for piece in pieces:
                out.write(piece)
                out.flush()
                last_write = time.monotonic()
                await asyncio.sleep(SETTLE * 0.6)  # a scanner writing page after page
        await until(lambda: processed(inbox, PATIENT_NAME).exists())
        await asyncio.sleep(SETTLE * 3)  # time enough for a second take, if one came
    whole = b"".join(pieces)
    assert len(take.taken) == 1
    incoming, data, at = take.taken[0]
    assert data == whole
    assert at - last_write >= SETTLE * 0.9
    assert incoming.source == "scanner"
    assert incoming.name == PATIENT_NAME
    assert incoming.size == len(whole)
    assert incoming.sha256 == hashlib.sha256(whole).hexdigest()
    assert not incoming.path.exists(), "the private copy is removed once taken"
    assert not path.exists()
    assert processed(inbox, PATIENT_NAME).read_bytes() == whole


async def test_a_file_present_at_start_is_taken_and_moved_only_after_its_take(
    inbox: Path,
) -> None:
    (inbox / "left-by-a-crash.pdf").write_bytes(b"%PDF-1.4 before the start")
    take = Taker(inbox)
    async with watching(scan_folder(inbox, take)):
        await until(lambda: processed(inbox, "left-by-a-crash.pdf").exists())
    assert [data for _, data, _ in take.taken] == [b"%PDF-1.4 before the start"]
    assert take.in_place_during_take == [True]


async def test_a_failing_take_leaves_the_file_in_place_and_it_is_retried(
    inbox: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bff.intake")
    take = Taker(inbox, failures=2)
    (inbox / PATIENT_NAME).write_bytes(b"%PDF-1.4 a referral")
    async with watching(scan_folder(inbox, take)):
        await until(lambda: take.failures == 1)
        assert (inbox / PATIENT_NAME).exists()
        assert not processed(inbox, PATIENT_NAME).exists()
        await until(lambda: processed(inbox, PATIENT_NAME).exists())
    assert len(take.taken) == 1
    assert take.in_place_during_take == [True, True, True]
    assert not (inbox / PATIENT_NAME).exists()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "Smith" not in caplog.text, "file names carry patients' names: never logged"
    assert take.taken[0][0].sha256[:12] in caplog.text


async def test_a_take_that_never_returns_leaves_the_file_for_the_next_start(
    inbox: Path,
) -> None:
    """A crash between the take and the move: the file is still in the folder, and the next
    start takes it again (the commit's hash dedupe makes that harmless)."""
    (inbox / PATIENT_NAME).write_bytes(b"%PDF-1.4 a discharge summary")
    stuck = Taker(inbox, hold=True)
    async with watching(scan_folder(inbox, stuck)):
        async with asyncio.timeout(8):
            await stuck.started.wait()
    # the watch was cancelled while the take was under way
    assert (inbox / PATIENT_NAME).read_bytes() == b"%PDF-1.4 a discharge summary"
    assert not (inbox / PROCESSED).exists()
    again = Taker(inbox)
    async with watching(scan_folder(inbox, again)):
        await until(lambda: processed(inbox, PATIENT_NAME).exists())
    assert [data for _, data, _ in again.taken] == [b"%PDF-1.4 a discharge summary"]


async def test_links_partial_names_and_subfolders_are_never_taken(
    inbox: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_bytes(b"not for the intake")
    (inbox / "link.pdf").symlink_to(secret)
    (inbox / "dangling.pdf").symlink_to(tmp_path / "nowhere")
    partial = {".hidden.pdf", "~$letter.docx", "scan0001.pdf.part", "upload.TMP"}
    for name in partial:
        (inbox / name).write_bytes(b"being written")
    (inbox / "sub").mkdir()
    (inbox / "sub" / "inner.pdf").write_bytes(b"in a subfolder")
    take = Taker(inbox)
    async with watching(scan_folder(inbox, take)):
        (inbox / "marker.pdf").write_bytes(b"%PDF marker")
        await until(lambda: processed(inbox, "marker.pdf").exists())
        await asyncio.sleep(SETTLE * 2)
    assert [incoming.name for incoming, _, _ in take.taken] == ["marker.pdf"]
    assert (inbox / "link.pdf").is_symlink() and (inbox / "dangling.pdf").is_symlink()
    assert secret.read_bytes() == b"not for the intake"
    assert all((inbox / name).exists() for name in partial)
    assert (inbox / "sub" / "inner.pdf").exists()


async def test_a_too_large_file_is_refused_to_its_area_with_a_log_line(
    inbox: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bff.intake")
    (inbox / PATIENT_NAME).write_bytes(b"x" * 2000)
    take = Taker(inbox)
    async with watching(scan_folder(inbox, take, max_bytes=1000)):
        (inbox / "small.pdf").write_bytes(b"y" * 1000)  # at the limit: taken
        refused = inbox / REFUSED / datetime.now(UTC).strftime("%Y-%m-%d") / PATIENT_NAME
        await until(lambda: refused.exists() and processed(inbox, "small.pdf").exists())
    assert [incoming.name for incoming, _, _ in take.taken] == ["small.pdf"]
    assert refused.read_bytes() == b"x" * 2000
    assert "refused: 2000 bytes, over 1000" in caplog.text
    assert "Smith" not in caplog.text


async def test_a_file_replaced_during_its_take_stays_to_be_taken_again(inbox: Path) -> None:
    """The share's file changed while the take ran (a scanner writing it again): the file
    the take saw is not what the move would put away, so the new one stays and is taken."""
    path = inbox / "rewritten.pdf"
    path.write_bytes(b"first content")
    contents: list[bytes] = []

    async def take(incoming: Incoming) -> None:
        contents.append(incoming.path.read_bytes())
        if len(contents) == 1:
            path.write_bytes(b"second content, longer")

    async with watching(scan_folder(inbox, take)):
        await until(lambda: len(contents) == 2 and processed(inbox, "rewritten.pdf").exists())
    assert contents == [b"first content", b"second content, longer"]
    assert processed(inbox, "rewritten.pdf").read_bytes() == b"second content, longer"


async def test_one_process_at_a_time_watches_the_folder(
    app: Quart, database_url: str, run_dir: Path, inbox: Path
) -> None:
    """The folder's job watches only while it holds the lease: another instance holding it
    keeps this one from taking anything until its lease ends."""
    settings = make_settings(
        database_url, run_dir, intake_folder=inbox, intake_settle_seconds=SETTLE
    )
    now = datetime.now(UTC)
    await take_lease(SCAN_LEASE, "other-instance:1", now, now + timedelta(minutes=1))
    take = Taker(inbox)
    job = scan_folder_job(settings, take)
    assert job is not None
    (inbox / "waiting.pdf").write_bytes(b"%PDF waiting for its turn")
    job.start()
    try:
        await asyncio.sleep(SETTLE * 4)  # runs of the job came and found the lease taken
        assert take.taken == [] and (inbox / "waiting.pdf").exists()
        await take_lease(SCAN_LEASE, "other-instance:1", now, now - timedelta(seconds=1))
        await until(lambda: processed(inbox, "waiting.pdf").exists())
    finally:
        await job.stop()
    assert [incoming.name for incoming, _, _ in take.taken] == ["waiting.pdf"]
    assert scan_folder_job(make_settings(database_url, run_dir), take) is None


KILLED_TAKER = """
import asyncio, sys
from pathlib import Path
from bff.intake.scanfolder import ScanFolder

async def take(incoming):
    Path(sys.argv[2]).write_text(incoming.sha256)  # the take has begun: kill me now
    await asyncio.Event().wait()

folder = ScanFolder(
    Path(sys.argv[1]), take, max_bytes=10**7, settle_seconds=0.2, work_dir=Path(sys.argv[3])
)
asyncio.run(folder.watch())
"""


async def test_a_process_killed_during_its_take_leaves_the_file_in_the_folder(
    inbox: Path, tmp_path: Path
) -> None:
    """SIGKILL between the take and the move: the file is still where the scanner put it,
    the next start takes it again, and the private copy the killed process left is removed."""
    content = b"%PDF-1.4 a letter from another hospital"
    (inbox / PATIENT_NAME).write_bytes(content)
    began, copies = tmp_path / "began", tmp_path / "copies"
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_TAKER, str(inbox), str(began), str(copies), cwd=ROOT
    )
    try:
        await until(began.exists, seconds=20)
    finally:
        child.kill()
        await child.wait()
    assert (inbox / PATIENT_NAME).read_bytes() == content
    assert not (inbox / PROCESSED).exists()
    assert len(list(copies.iterdir())) == 1  # its copy, left by the kill
    again = Taker(inbox)
    folder = ScanFolder(inbox, again, max_bytes=10**7, settle_seconds=0.2, work_dir=copies)
    async with watching(folder):
        await until(lambda: processed(inbox, PATIENT_NAME).exists())
    assert [incoming.sha256 for incoming, _, _ in again.taken] == [began.read_text()]
    assert list(copies.iterdir()) == []


async def test_a_missing_folder_is_told_once_and_watched_once_it_is_there(
    app: Quart, database_url: str, run_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A share not mounted yet: one warning (not one a second), then the folder is watched
    as soon as it appears."""
    mount = tmp_path / "share"
    settings = make_settings(database_url, run_dir, intake_folder=mount, intake_settle_seconds=0.2)
    take = Taker(mount)
    job = scan_folder_job(settings, take)
    assert job is not None
    job.start()
    try:
        await asyncio.sleep(2.5)  # the job runs every second
        assert caplog.text.count("is not a folder") == 1
        mount.mkdir()
        (mount / "first.pdf").write_bytes(b"%PDF first after mounting")
        await until(lambda: processed(mount, "first.pdf").exists())
    finally:
        await job.stop()
    assert [incoming.name for incoming, _, _ in take.taken] == ["first.pdf"]
