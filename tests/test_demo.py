"""The demo (`python -m bff demo`, bff/demo.py): every folder's synthetic patient, and its
scanned letter, multi-page PDF and Word document stored as uploads are and read for search
(the letter by the real tesseract)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image
from quart import Quart

from bff.containers.models import Folder
from bff.demo import CONTAINERS, load_demo
from bff.demo_documents import CARE_PLAN_NAME, LETTER_NAME, REPORT_NAME, demo_patient, documents
from bff.files.models import StoredFile
from bff.jobs import service as jobs
from bff.jobs.models import KIND_TEXT, FileJob
from bff.search.models import SearchText
from bff.services import app_services
from storage.base import ObjectKey, Storage
from tests.conftest import make_settings, started_app

FOLDERS = [(c, f) for c, names in CONTAINERS.items() for f in names]


@pytest.fixture
async def demo_app(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Quart]:
    """An app on storage of its own with the demo loaded (no background jobs: a test runs
    the ones it needs)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", job_seconds=60
    )
    async with started_app(settings) as app:
        await load_demo(settings, app_services(app).storage)
        yield app


async def _content(storage: Storage, container: str, folder: str, name: str) -> bytes:
    chunks = []
    async with await storage.open_object(ObjectKey.file(container, folder, name)) as stream:
        async for chunk in stream:
            chunks.append(chunk)
    return b"".join(chunks)


async def test_every_demo_folder_has_a_patient_and_a_letter_a_pdf_and_a_document(
    demo_app: Quart,
) -> None:
    storage = app_services(demo_app).storage
    rows = {
        (row.container.name, row.name): row
        for row in await Folder.all().prefetch_related("container")
    }
    assert sorted(rows) == sorted(FOLDERS)
    numbers = [row.patient_record_number for row in rows.values()]
    assert all(re.fullmatch(r"DEMO-\d{4}", str(n)) for n in numbers), numbers
    assert len(set(numbers)) == len(numbers)  # unique: no two folders share a record number
    for (container, name), row in rows.items():
        assert row.patient_name and row.patient_birth_date, (container, name)
        stored = {f.name: f for f in await StoredFile.filter(folder_id=row.id)}
        assert {LETTER_NAME, REPORT_NAME, CARE_PLAN_NAME} <= set(stored), (container, name)
        # Stored as uploads are: a text job for search (and thumbnails) on each.
        for file_name in (LETTER_NAME, REPORT_NAME, CARE_PLAN_NAME):
            job = await FileJob.get_or_none(file_id=stored[file_name].id, kind=KIND_TEXT)
            assert job is not None and job.state == "pending", (container, name, file_name)

    container, name = FOLDERS[0]
    row = rows[(container, name)]
    letter = Image.open(io.BytesIO(await _content(storage, container, name, LETTER_NAME)))
    assert letter.format == "JPEG"
    report = pypdfium2.PdfDocument(await _content(storage, container, name, REPORT_NAME))
    assert 2 <= len(report) <= 3
    texts = [page.get_textpage().get_text_bounded() for page in report]
    assert all(str(row.patient_name) in text for text in texts)  # selectable text on each page
    assert "Investigations" in texts[1]
    with zipfile.ZipFile(io.BytesIO(await _content(storage, container, name, CARE_PLAN_NAME))) as z:
        assert str(row.patient_record_number) in z.read("word/document.xml").decode()

    # Loading it again changes nothing: the same patients, no new versions.
    before = [(f.id, f.version_id) for f in await StoredFile.all().order_by("id")]
    await load_demo(app_services(demo_app).settings, storage)
    assert [(f.id, f.version_id) for f in await StoredFile.all().order_by("id")] == before
    again = await Folder.get(id=row.id)
    assert (again.patient_name, again.patient_record_number) == (
        row.patient_name,
        row.patient_record_number,
    )


async def test_the_demo_letter_is_read_by_ocr_and_its_pdf_and_document_by_text(
    demo_app: Quart,
) -> None:
    """The first folder's three documents through the product's text jobs: the scanned
    letter by the real tesseract, the PDF from its text layer page by page, the .docx."""
    services = app_services(demo_app)
    container, name = FOLDERS[0]
    folder = await Folder.get(container__name=container, name=name)
    ours = {f.id: f.name for f in await StoredFile.filter(folder_id=folder.id)}
    mine = {LETTER_NAME, REPORT_NAME, CARE_PLAN_NAME}
    keep = [i for i, n in ours.items() if n in mine]
    await FileJob.exclude(file_id__in=keep, kind=KIND_TEXT).delete()  # only these three
    pool = jobs.job_pool(services.settings)
    try:
        await jobs.run_due(services.storage, services.settings, pool, "demo-test:1")
    finally:
        await pool.close()
    texts: dict[str, list[str]] = {}
    for row in await SearchText.filter(file_id__in=keep).order_by("page"):
        texts.setdefault(ours[row.file_id], []).append(row.text)
    assert len(texts[REPORT_NAME]) == 3
    assert "Investigations" in texts[REPORT_NAME][1]
    assert "Nursing care plan" in texts[CARE_PLAN_NAME][0]
    [scanned] = texts[LETTER_NAME]
    words = scanned.lower()
    assert "breathlessness" in words and "riverside" in words, scanned
    assert folder.patient_record_number and folder.patient_record_number in scanned


def test_the_demo_documents_are_the_same_each_time() -> None:
    patient = demo_patient(3, "patient-004")
    assert documents(patient) == documents(patient)
    assert patient.record_number == "DEMO-0004"
