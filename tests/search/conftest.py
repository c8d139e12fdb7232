"""Fixtures for search: a hospital of two wards, files uploaded through the real API and their
text read by the real text job (run by the test: it decides when); and for text extraction
(bff/jobs/, bff/search/extract.py) a ward whose app reads files' text in the background, and
files made here (text and scanned PDFs, images, Word documents)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Sequence
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont
from quart import Quart
from werkzeug.datastructures import FileStorage

from bff.containers.models import Container, Folder
from bff.files.models import StoredFile
from bff.jobs import service as jobs
from bff.jobs.models import KIND_TEXT, FileJob
from bff.search.models import SearchText
from bff.services import app_services
from bff.users.models import Role
from bff.workers import WorkerPool
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, assign, make_container, make_folder, make_staff
from tests.files.conftest import Ward


class Hospital:
    """Ward A (folders `a1` assigned to its doctor, nurse and assistant, `a2` to nobody) and
    ward B (folder `b1` with a nurse of its own), and an admin. Its app reads no text itself
    (BFF_JOB_WORKERS=0): `read()` runs the text jobs the uploads recorded, so a test knows
    whether a file's text has been read when it searches."""

    def __init__(self, app: Quart, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.client = app.test_client()
        self.pool: WorkerPool | None = None

    async def setup(self) -> Hospital:
        self.ward_a: Container = await make_container("ward-a")
        self.ward_b: Container = await make_container("ward-b")
        self.a1: Folder = await make_folder(self.ward_a, "Smith_John")
        self.a2: Folder = await make_folder(self.ward_a, "Jones_Mary")
        self.b1: Folder = await make_folder(self.ward_b, "Müller_Anna")
        self.admin = await make_staff(self.settings, Role.ADMIN)
        self.doctor = await make_staff(self.settings, Role.DOCTOR)
        self.nurse = await make_staff(self.settings, Role.NURSE)
        self.assistant = await make_staff(self.settings, Role.ASSISTANT)
        self.nurse_b = await make_staff(self.settings, Role.NURSE)
        for member in (self.doctor, self.nurse, self.assistant):
            await assign(member.user, self.ward_a, self.a1)
        await assign(self.nurse_b.user, self.ward_b, self.b1)
        return self

    async def upload(
        self,
        folder: Folder,
        name: str,
        *pages: str,
        content_type: str = "text/plain",
        overwrite: bool = False,
    ) -> StoredFile:
        """Upload a file through the API as the admin, its content holding pages of text: a
        PDF of a page each (.pdf), an image of the first page's words (.png, read by OCR), else
        a text file of one page. Its text is not read yet."""
        container = await Container.get(id=folder.container_id)
        upload = FileStorage(
            BytesIO(content_of(name, pages)), filename=name, content_type=content_type
        )
        url = f"/api/blobs/{quote(container.name)}/{quote(folder.name)}"
        response = await self.client.post(
            url,
            files={"file": upload},
            headers=self.admin.headers,
            query_string={"overwrite": "true"} if overwrite else {},
        )
        assert response.status_code == 201, await response.get_data(as_text=True)
        return await StoredFile.get(folder_id=folder.id, name=name)

    async def read(self) -> None:
        """Run every due job the uploads recorded (the text job of each file, as the app's job
        runner would), here and now."""
        if self.pool is None:
            self.pool = jobs.job_pool(self.settings)
        await jobs.run_due(app_services(self.app).storage, self.settings, self.pool, "test:1")

    async def add(
        self, folder: Folder, name: str, *pages: str, content_type: str = "text/plain"
    ) -> StoredFile:
        """Upload a file (`upload`) and read its text: searchable once this returns."""
        await self.upload(folder, name, *pages, content_type=content_type)
        await self.read()
        return await StoredFile.get(folder_id=folder.id, name=name)

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    async def search(self, who: StaffMember, q: str, status: int = 200, /, **args: Any) -> Any:
        """GET /api/search as who; the JSON body (the status checked)."""
        response = await self.client.get(
            "/api/search", query_string={"q": q, **args}, headers=who.headers
        )
        body = await response.get_json()
        assert response.status_code == status, body
        return body


def content_of(name: str, pages: Sequence[str]) -> bytes:
    """A file's content that holds pages of text, as its name's type does (Hospital.upload)."""
    if name.endswith(".pdf"):
        assert pages, "a PDF without text would be read by OCR"
        return text_pdf(*pages)
    if name.endswith(".png"):
        [words] = pages
        return png_of(words)
    assert len(pages) <= 1, "a text file has one page"
    return "".join(pages).encode()


@pytest.fixture
async def hospital(app: Quart, settings: Settings) -> AsyncIterator[Hospital]:
    """Two wards, their staff and an admin; no files yet."""
    built = await Hospital(app, settings).setup()
    try:
        yield built
    finally:
        await built.close()


def names(body: dict[str, Any]) -> list[str]:
    """The result file names of a search's body, in order."""
    return [r["blobName"] for r in body["results"]]


# Fast enough for tests: a failure is tried again within a fifth of a second, idle processes
# look for work five times a second. A damaged PDF is kept (not displayable) rather than
# refused, so that what reading one does can be tested.
JOB_SETTINGS: dict[str, Any] = {
    "job_workers": 1,
    "job_retry_seconds": 0.1,
    "job_poll_seconds": 0.2,
    "job_attempts": 2,
    "job_seconds": 30,
    "damaged_pdf": "keep",
}


@pytest.fixture
async def reading_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward on local storage whose app reads text in the background."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", **JOB_SETTINGS
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


async def job_of(ward: Ward, name: str) -> FileJob | None:
    """The text job of a file of the ward's folder, or None."""
    row = await StoredFile.get_or_none(folder_id=ward.folder.id, name=name)
    if row is None:
        return None
    return await FileJob.get_or_none(file_id=row.id, kind=KIND_TEXT)


async def settled(ward: Ward, name: str, within: float | None = None) -> FileJob:
    """The file's text job once done or failed and its run ended, its counts with it. Read
    again after each job the app's runner ends, never by time: a job's time on a loaded
    machine has no bound a test could choose (CI's hang guard is pytest-timeout's)."""
    runner = app_services(ward.app).jobs
    assert runner is not None
    async with asyncio.timeout(within):
        while True:
            ended = runner.ended
            job = await job_of(ward, name)
            if job is not None and job.state in ("done", "failed") and not runner.runs(job.id):
                return job
            await runner.ended_after(ended)


async def texts_of(ward: Ward, name: str) -> list[tuple[int, str]]:
    """(page, text) of a file's searchable text, by page."""
    row = await StoredFile.get(folder_id=ward.folder.id, name=name)
    rows = await SearchText.filter(file_id=row.id).order_by("page")
    return [(r.page, r.text) for r in rows]


def text_image(text: str) -> Image.Image:
    """One short line of large black text on white: what OCR reads in well under a second."""
    image = Image.new("L", (60 + 34 * len(text), 140), 255)
    ImageDraw.Draw(image).text((30, 30), text, fill=0, font=ImageFont.load_default(size=64))
    return image


def png_of(text: str) -> bytes:
    out = io.BytesIO()
    text_image(text).save(out, format="PNG")
    return out.getvalue()


def scanned_pdf(*pages: str) -> bytes:
    """A PDF of page images only (no text layer), as a scanner makes."""
    images = [text_image(text).convert("RGB") for text in pages]
    out = io.BytesIO()
    images[0].save(out, format="PDF", save_all=True, append_images=images[1:], resolution=150)
    return out.getvalue()


def text_pdf(*pages: str, user_password: str | None = None) -> bytes:
    """A PDF with a text layer, a line per page (encrypted with a password if given)."""
    pdf = FPDF()
    if user_password is not None:
        pdf.set_encryption(owner_password="owner-secret", user_password=user_password)
    pdf.set_font("Helvetica", size=14)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(w=0, text=text)  # wrapped: text past the page's edge is not read
    return bytes(pdf.output())


def docx_of(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture
async def idle_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward whose app reads no text itself (BFF_JOB_WORKERS=0): the test runs the jobs."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        **{**JOB_SETTINGS, "job_workers": 0},
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()
