"""Fixtures for the files API: the real app on local disk or on S3 (moto's server)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from quart import Quart
from quart.testing import QuartClient as Client
from werkzeug.datastructures import FileStorage

from bff.containers.models import Container, Folder
from bff.services import app_services
from bff.users.models import Role
from config.settings import Settings
from storage.base import Storage
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, assign, make_container, make_folder, make_staff

BOUNDARY = "----test-boundary-7MA4YWxkTrZu0gW"


class Ward:
    """A container with two folders: `folder` assigned to `nurse`, `other` to nobody."""

    def __init__(self, app: Quart, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.client: Client = app.test_client()
        self.storage: Storage = app_services(app).storage

    async def setup(self) -> Ward:
        # The app's upload sweep and retention purge run at start: over before the ward's data
        # is written (one late on a loaded machine purged the trash a test had just aged, or
        # held the lease a test took; the next run is minutes away).
        for periodic in app_services(self.app).periodic:
            await periodic.settled()
        self.container: Container = await make_container()
        self.folder: Folder = await make_folder(self.container, "patient-1")
        self.other: Folder = await make_folder(self.container, "patient-2")
        self.admin: StaffMember = await make_staff(self.settings, Role.ADMIN)
        self.nurse: StaffMember = await make_staff(self.settings, Role.NURSE)
        self.assistant: StaffMember = await make_staff(self.settings, Role.ASSISTANT)
        await assign(self.nurse.user, self.container, self.folder)
        await assign(self.assistant.user, self.container, self.folder)
        return self

    async def cli(self, *args: str) -> str:
        """`python -m bff ARGS` on this ward's database and storage: its output (exit 0)."""
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bff",
            *args,
            env={
                "PATH": "/usr/bin:/bin",
                "BFF_DATABASE_URL": self.settings.database_url,
                "BFF_VAR_DIR": str(self.settings.var_dir),
                "BFF_STORAGE_URL": self.settings.storage_url,
            },
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode == 0, err.decode()
        return out.decode()

    def url(self, *parts: str, folder: Folder | None = None) -> str:
        """/api/blobs/{container}/{folder}[/parts...]."""
        name = (folder or self.folder).name
        return "/".join(
            ["/api/blobs", *(quote(p, safe="") for p in (self.container.name, name, *parts))]
        )

    async def upload(
        self,
        who: StaffMember,
        name: str,
        data: bytes,
        *,
        folder: Folder | None = None,
        content_type: str = "application/octet-stream",
        query: dict[str, str] | None = None,
        **form: str,
    ) -> Any:
        """POST a multipart upload; returns the response."""
        upload = FileStorage(BytesIO(data), filename=name, content_type=content_type)
        return await self.client.post(
            self.url(folder=folder),
            files={"file": upload},
            form=form,
            headers=who.headers,
            query_string=query or {},
        )

    async def form_upload(
        self,
        who: StaffMember,
        parts: list[tuple[str, str | None, bytes]],
        query: dict[str, str] | None = None,
    ) -> Any:
        """POST a hand-built multipart body: parts of (field name, file name or None, bytes)."""
        body = bytearray()
        for field, filename, data in parts:
            disposition = f'form-data; name="{field}"'
            if filename is not None:
                disposition += f'; filename="{filename}"'
            body += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
            body += data + b"\r\n"
        body += f"--{BOUNDARY}--\r\n".encode()
        return await self.client.post(
            self.url(),
            data=bytes(body),
            headers={**who.headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
            query_string=query or {},
        )

    async def listing(self, who: StaffMember, folder: Folder | None = None) -> dict[str, Any]:
        """The folder's file list, as who sees it."""
        response = await self.client.get(self.url(folder=folder), headers=who.headers)
        assert response.status_code == 200, await response.get_data()
        body: dict[str, Any] = await response.get_json()
        return body

    async def stored(self, name: str, folder: Folder | None = None) -> bytes | None:
        """The bytes storage holds under name, or None."""
        folder_name = (folder or self.folder).name
        if not await self.storage.exists(self.container.name, folder_name, name):
            return None
        return await (await self.storage.open(self.container.name, folder_name, name)).read_all()


@pytest.fixture
async def ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward on local storage of its own."""
    settings = make_settings(database_url, run_dir, storage_url=f"file://{tmp_path}/storage")
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


# BFF_ALLOWED_TYPES's default with web pages and SVG images: for tests of how such files are
# served (downloads in a sandbox), which the default refuses (bff/files/markup.py).
WITH_HTML = "pdf,image,text,rtf,office,dicom,html"


@pytest.fixture
async def web_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward on local storage of its own that accepts web pages and SVG images."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", allowed_types=WITH_HTML
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


@pytest.fixture
async def any_ward(storage_app: Quart) -> Ward:
    """A ward on each storage backend in turn."""
    return await Ward(storage_app, app_services(storage_app).settings).setup()
