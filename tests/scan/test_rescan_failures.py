"""Files the rescan cannot settle never hold up the others (issue 49, bff/scan/rescan.py),
with the real clamd: a held file whose stored object is missing, or that is over clamd's own
size limit, is noted (scan_tried_at) and passed; the other held files are released in the
same run, and the failed one comes after the others in the next."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bff.files.models import StoredFile
from bff.scan import repository
from bff.scan.rescan import rescan_files
from bff.scan.service import configure_scanning
from storage.base import ObjectKey
from tests import samples
from tests.files.conftest import Ward
from tests.scan.conftest import STREAM_MAX_MB
from tests.scan.test_scanning import scanned_ward
from tools.testclamd import RunningClamd

NOWHERE = "unix:/nonexistent-bff-test/clamd.sock"  # no clamd: uploads are held


async def _states(ward: Ward) -> dict[str, str]:
    return {r.name: r.scan_state for r in await StoredFile.filter(folder_id=ward.folder.id)}


async def _hold(ward: Ward, files: dict[str, bytes]) -> None:
    """Upload files while no clamd answers (held), the first the oldest."""
    configure_scanning(ward.settings.model_copy(update={"clamd": NOWHERE}))
    try:
        for name, data in files.items():
            assert (await ward.upload(ward.nurse, name, data)).status_code == 201
    finally:
        configure_scanning(ward.settings)
    now = datetime.now(UTC)
    for age, name in enumerate(reversed(files)):
        await StoredFile.filter(folder_id=ward.folder.id, name=name).update(
            last_modified=now - timedelta(minutes=age + 1)
        )
    assert {(await _states(ward))[name] for name in files} == {"held"}


async def test_a_held_file_whose_object_is_missing_does_not_stop_the_others(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_unavailable="hold"
    ) as ward:
        files = {"gone.txt": b"gone\n", "notes.txt": b"notes\n", "letter.txt": b"letter\n"}
        await _hold(ward, files)
        key = ObjectKey.file(ward.container.name, ward.folder.name, "gone.txt")
        assert await ward.storage.delete_object(key)

        assert await rescan_files(ward.storage) == 2
        assert await _states(ward) == {
            "gone.txt": "held",
            "notes.txt": "clean",
            "letter.txt": "clean",
        }
        gone = await StoredFile.get(folder_id=ward.folder.id, name="gone.txt")
        assert gone.scan_tried_at is not None and gone.scanned_at is None


async def test_a_held_file_over_clamds_limit_does_not_stop_the_others(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """BFF_SCAN_MAX_MB above clamd's StreamMaxLength: clamd refuses the big one (size limit
    exceeded) but still answers; the others are released; the big one, tried, goes last."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url,
        run_dir,
        url,
        clamd=clamd.address,
        scan_unavailable="hold",
        scan_max_mb=STREAM_MAX_MB * 2,
    ) as ward:
        big = b"a" * ((STREAM_MAX_MB + 1) * 1024 * 1024)
        await _hold(ward, {"big.txt": big, "notes.txt": b"notes\n"})

        assert await rescan_files(ward.storage) == 1
        assert await _states(ward) == {"big.txt": "held", "notes.txt": "clean"}
        big_row = await StoredFile.get(folder_id=ward.folder.id, name="big.txt")
        assert big_row.scan_tried_at is not None

        await _hold(ward, {"later.txt": b"later\n"})
        # The later upload is due before the big one tried and failed, though stored after it.
        due = await repository.due_files(10, 100 * 1024 * 1024, None, datetime.now(UTC))
        assert [r.name for r in due] == ["later.txt", "big.txt"]
        assert await rescan_files(ward.storage, batch=1) == 1
        assert (await _states(ward))["later.txt"] == "clean"


def _nested_docx(depth: int = 30) -> bytes:
    """A Word document carrying ZIPs nested deeper than clamd's MaxRecursion: clamd answers
    Heuristics.Limits.Exceeded, never a verdict (the review's case)."""
    inner = b"plain text"
    for level in range(depth):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as nested:
            nested.writestr(f"l{level}.zip" if level else "x.txt", inner)
        inner = out.getvalue()
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(samples.docx())) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        target.writestr("word/media/image1.zip", inner)
    return out.getvalue()


async def test_held_files_without_a_verdict_never_starve_the_unscanned_and_due_ones(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """Held files clamd never settles, as many as a batch: each run before retried them first
    and never reached an unscanned file or a clean one due (the review's repro). Now every
    file never tried comes before every file tried, whatever its group."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_unavailable="hold"
    ) as ward:
        for name in ("a.docx", "b.docx"):
            stored = await ward.upload(ward.nurse, name, _nested_docx())
            assert (await stored.get_json())["blob"]["scanState"] == "held"
        for name in ("old.txt", "due.txt"):
            assert (await ward.upload(ward.nurse, name, f"{name}\n".encode())).status_code == 201
        await StoredFile.filter(name="old.txt").update(scan_state="unscanned", scanned_at=None)
        await StoredFile.filter(name="due.txt").update(
            scanned_at=datetime.now(UTC) - timedelta(days=2)
        )

        assert await rescan_files(ward.storage, batch=2) == 0  # both held ones: no verdict
        tried = await StoredFile.filter(scan_tried_at__not_isnull=True)
        assert sorted(r.name for r in tried) == ["a.docx", "b.docx"]
        assert await rescan_files(ward.storage, batch=2) == 2
        states = await _states(ward)
        assert (states["old.txt"], states["due.txt"]) == ("clean", "clean")
        assert (await StoredFile.get(name="due.txt")).scanned_at > datetime.now(UTC) - timedelta(
            minutes=1
        )
