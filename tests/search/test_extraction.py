"""Text read from uploads in the background, by the real readers and the real tesseract: what
becomes searchable, what the listing says, and files that cannot be read."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from aiobotocore.session import AioSession
from prometheus_client import REGISTRY

from bff.files.models import StoredFile
from bff.jobs.models import FileJob
from bff.jobs.service import too_slow
from bff.search.extract import DAMAGED_PDF, ENCRYPTED_PDF
from bff.search.models import SearchText
from tests import samples
from tests.conftest import REGION, make_settings, started_app
from tests.files.conftest import Ward
from tests.search.conftest import (
    JOB_SETTINGS,
    docx_of,
    job_of,
    png_of,
    scanned_pdf,
    settled,
    text_pdf,
    texts_of,
)

RTF = rb"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard Referral for {\b asthma} review.\par}"


async def test_a_text_file_becomes_searchable_without_slowing_its_upload(
    reading_ward: Ward,
) -> None:
    ward = reading_ward
    started = time.monotonic()
    response = await ward.upload(ward.nurse, "note.txt", b"Penicillin allergy noted.")
    assert response.status_code == 201, await response.get_data()
    body = await response.get_json()
    assert body["blob"]["textState"] in ("pending", "ready")
    assert body["blob"]["textProblem"] is None
    assert time.monotonic() - started < 5
    job = await settled(ward, "note.txt")
    assert job.state == "done"
    row = await StoredFile.get(folder_id=ward.folder.id, name="note.txt")
    assert job.version_id == row.version_id
    assert await texts_of(ward, "note.txt") == [(1, "Penicillin allergy noted.")]
    listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
    assert listed["note.txt"]["textState"] == "ready"
    assert listed["note.txt"]["textProblem"] is None


def _pages_timed(source: str) -> float:
    value = REGISTRY.get_sample_value("bff_text_seconds_per_page_count", {"source": source})
    return value or 0.0


async def test_pdfs_word_documents_rtf_and_images_are_read(reading_ward: Ward) -> None:
    ward = reading_ward
    ocr_pages, text_pages = _pages_timed("ocr"), _pages_timed("text")
    files = {
        "letter.pdf": text_pdf("Discharge letter mentions amoxicillin", "Second page: asthma"),
        "scan.pdf": scanned_pdf("penicillin allergy"),
        "photo.png": png_of("referral letter"),
        "report.docx": docx_of(["Ward round summary"], table=[["Drug", "Warfarin"]]),
        "referral.rtf": RTF,
    }
    for name, data in files.items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, await response.get_data()
    for name in ("letter.pdf", "scan.pdf", "photo.png", "report.docx", "referral.txt"):
        assert (await settled(ward, name)).state == "done", name
    assert await texts_of(ward, "letter.pdf") == [
        (1, "Discharge letter mentions amoxicillin"),
        (2, "Second page: asthma"),
    ]
    [(page, scanned)] = await texts_of(ward, "scan.pdf")  # no text layer: OCR
    assert page == 1 and "penicillin allergy" in scanned.lower()
    [(_, photo)] = await texts_of(ward, "photo.png")
    assert "referral letter" in photo.lower()
    [(_, word)] = await texts_of(ward, "report.docx")
    assert "Ward round summary" in word and "Warfarin" in word
    [(_, rtf)] = await texts_of(ward, "referral.txt")  # the RTF's converted text, as stored
    assert "Referral for asthma review." in rtf
    listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
    assert {listed[n]["textState"] for n in listed} == {"ready"}
    # Seconds per page: 2 pages by OCR, 4 from text (2 PDF pages, the .docx, the RTF's text).
    assert _pages_timed("ocr") - ocr_pages == 2
    assert _pages_timed("text") - text_pages == 4


async def test_damaged_and_encrypted_pdfs_are_marked_not_searchable(reading_ward: Ward) -> None:
    ward = reading_ward
    damaged = text_pdf("Cut short")[:200]
    encrypted = text_pdf("Confidential: hepatitis", user_password="patient-secret")
    for name, data in (("damaged.pdf", damaged), ("locked.pdf", encrypted)):
        assert (await ward.upload(ward.nurse, name, data)).status_code == 201
    broken = await settled(ward, "damaged.pdf")
    locked = await settled(ward, "locked.pdf")
    # Nothing to try again: each failed at its first attempt, with the reason.
    assert (broken.state, broken.attempts, broken.reason) == ("failed", 1, DAMAGED_PDF)
    assert (locked.state, locked.attempts, locked.reason) == ("failed", 1, ENCRYPTED_PDF)
    assert await SearchText.filter(file_id__in=[broken.file_id, locked.file_id]).count() == 0
    listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
    assert (listed["damaged.pdf"]["textState"], listed["damaged.pdf"]["textProblem"]) == (
        "failed",
        DAMAGED_PDF,
    )
    assert listed["locked.pdf"]["textProblem"] == ENCRYPTED_PDF
    # The server is unharmed: healthy, and the next file is read.
    assert (await ward.client.get("/api/health")).status_code == 200
    assert (await ward.upload(ward.nurse, "after.txt", b"still reading")).status_code == 201
    assert (await settled(ward, "after.txt")).state == "done"


async def test_profile_images_and_other_types_are_not_searched(reading_ward: Ward) -> None:
    ward = reading_ward
    response = await ward.upload(
        ward.nurse, "face.png", png_of("not searched"), isProfileImage="true"
    )
    assert response.status_code == 201, await response.get_data()
    assert (await ward.upload(ward.nurse, "chest.dcm", samples.dicom())).status_code == 201
    listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
    profile = next(b for b in listed.values() if b["isProfileImage"])
    assert (profile["textState"], profile["textProblem"]) == (None, None)
    assert listed["chest.dcm"]["textState"] is None
    assert await FileJob.all().count() == 0
    assert await job_of(ward, "chest.dcm") is None


async def test_a_job_over_its_time_limit_is_killed_and_failed(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        **{**JOB_SETTINGS, "job_seconds": 0.05, "job_attempts": 1},
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "slow.pdf", scanned_pdf("slow"))).status_code == 201
        job = await settled(ward, "slow.pdf")
        assert (job.state, job.reason) == ("failed", too_slow(0.05))
        listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
        assert listed["slow.pdf"]["textProblem"] == too_slow(0.05)


async def test_text_is_read_from_s3_storage(
    database_url: str, run_dir: Path, s3_endpoint: str, s3_session: AioSession
) -> None:
    bucket = "text-" + secrets.token_hex(6)
    async with s3_session.create_client("s3", endpoint_url=s3_endpoint, region_name=REGION) as s3:
        await s3.create_bucket(Bucket=bucket)
    url = f"s3://{bucket}/records?endpoint_url={s3_endpoint}&region={REGION}"
    settings = make_settings(database_url, run_dir, storage_url=url, **JOB_SETTINGS)
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        letter = text_pdf("Stored on S3: metformin")
        assert (await ward.upload(ward.nurse, "s3.pdf", letter)).status_code == 201
        job = await settled(ward, "s3.pdf")
        assert (job.state, job.attempts) == ("done", 1)
        assert await texts_of(ward, "s3.pdf") == [(1, "Stored on S3: metformin")]
