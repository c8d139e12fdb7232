"""The periodic rescan of a converted RTF scans what came in (issue 49, review): the RTF's kept
original, whose bytes the listed text of it does not hold; a finding quarantines the original
and removes the file with it."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bff.files.models import StoredFile
from bff.files.names import folder_key, original_rtf_key
from bff.scan.models import Quarantined
from bff.scan.rescan import rescan_files
from storage.base import NotFound, ObjectKey
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tools.testclamd import RunningClamd


async def test_a_converted_rtfs_original_is_what_the_rescan_scans(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    token = secrets.token_hex(12)
    signature = f"Bff-Rtf-{token}"
    # An ignorable destination: RTF readers skip it, so it is in the original only.
    hidden = f"\\bffhidden{token}".encode()
    original = b"{\\rtf1\\ansi {\\*" + hidden + b" x}Discharge letter for the ward.\\par}"
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        response = await ward.upload(ward.nurse, "letter.rtf", original)
        assert response.status_code == 201, await response.get_data()
        row = await StoredFile.get(folder_id=ward.folder.id, name="letter.txt")
        assert row.original_rtf_name == "letter.rtf" and row.scan_state == "clean"
        text = await ward.stored("letter.txt")
        assert text is not None and b"Discharge letter" in text and hidden not in text
        kept_original = folder_key(ward.folder).child(original_rtf_key("letter.rtf"))
        assert await (await ward.storage.open_object(kept_original)).read_all() == original

        now = datetime.now(UTC)
        await StoredFile.filter(id=row.id).update(scanned_at=now - timedelta(hours=25))
        clamd.add_signature(signature, hidden)
        async with app.app_context():
            assert await rescan_files(ward.storage) == 1

        assert await StoredFile.get_or_none(id=row.id) is None
        entry = await Quarantined.get(signature=signature)
        assert entry.name == "letter.txt" and entry.reason == "rescan"
        kept = await ward.storage.open_object(ObjectKey.parse(entry.object_key))
        assert await kept.read_all() == original
        assert await ward.stored("letter.txt") is None
        try:
            await ward.storage.open_object(kept_original)
        except NotFound:
            pass
        else:
            raise AssertionError("the infected original is still kept beside the folder")
