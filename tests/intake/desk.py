"""The intake API tests' desk: a ward (tests/files/conftest.py: a container, the nurse's folder
and another) on its own local storage, screened by a real clamd, with helpers that call the
real app: an upload batch, the inbox, filing, deleting, the admin's grant."""

from __future__ import annotations

import asyncio
import io
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bff.intake.models import IntakeItem, Status
from bff.patients.rules import record_key
from bff.users.models import Role
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, assign, make_staff
from tests.files.conftest import BOUNDARY, Ward
from tools.testclamd import RunningClamd


def png(seed: bytes | None = None) -> bytes:
    """A small PNG whose pixels differ for every call (so its bytes are new)."""
    seed = seed or secrets.token_bytes(12)
    image = Image.frombytes("RGB", (2, 2), seed.ljust(12, b"\0")[:12])
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def pdf(pages: int) -> bytes:
    """A PDF of blank pages (with a random document id, so its bytes are new)."""
    import pikepdf

    document = pikepdf.new()
    for _ in range(pages):
        document.add_blank_page()
    document.docinfo["/Title"] = secrets.token_hex(8)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def batch_body(files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    """An upload batch's multipart body of files (name, bytes), and its content type."""
    body = bytearray()
    for name, data in files:
        body += (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        body += data + b"\r\n"
    body += f"--{BOUNDARY}--\r\n".encode()
    return bytes(body), f"multipart/form-data; boundary={BOUNDARY}"


class Desk(Ward):
    """A ward with a records clerk: a nurse granted the intake permission by the admin, and
    the ward's nurse (assigned `folder`) without it."""

    async def setup(self) -> Desk:
        await super().setup()
        self.clerk: StaffMember = await make_staff(self.settings, Role.NURSE)
        await assign(self.clerk.user, self.container, self.folder)
        await self.grant(self.clerk, True)
        return self

    async def record_ann_smith(self) -> None:
        """The `other` folder's patient: Ann Smith, born 3 March 1961, record number 0012345
        (written to the row, as the admin's form would keep it)."""
        await (
            type(self.other)
            .filter(id=self.other.id)
            .update(
                patient_name="Ann Smith",
                patient_birth_date=date(1961, 3, 3),
                patient_record_number="0012345",
                patient_record_key=record_key("0012345"),
            )
        )

    async def grant(self, who: StaffMember, intake: bool) -> Any:
        """The admin's user edit, with the intake permission granted or withdrawn."""
        user = who.user
        return await self.client.put(
            f"/api/users/{user.id}",
            headers=self.admin.headers,
            json={
                "name": user.name,
                "username": user.username,
                "role": user.role.value,
                "intake": intake,
            },
        )

    async def send_batch(self, who: StaffMember, files: list[tuple[str, bytes]]) -> Any:
        """POST a batch of files to /api/intake/items."""
        body, content_type = batch_body(files)
        return await self.client.post(
            "/api/intake/items", data=body, headers={**who.headers, "Content-Type": content_type}
        )

    async def batch(self, who: StaffMember, files: list[tuple[str, bytes]]) -> list[Any]:
        """A batch that must be accepted: its per-file results."""
        response = await self.send_batch(who, files)
        assert response.status_code == 201, await response.get_data(as_text=True)
        results: list[Any] = (await response.get_json())["items"]
        return results

    async def inbox(self, who: StaffMember, **query: str) -> dict[str, Any]:
        response = await self.client.get(
            "/api/intake/items", headers=who.headers, query_string=query
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
        body: dict[str, Any] = await response.get_json()
        return body

    async def file(self, who: StaffMember, item_id: int, **body: str) -> Any:
        target = {"container": self.container.name, "folder": self.folder.name, **body}
        return await self.client.post(
            f"/api/intake/items/{item_id}/file", headers=who.headers, json=target
        )

    async def delete(self, who: StaffMember, item_id: int, body: dict[str, Any]) -> Any:
        return await self.client.post(
            f"/api/intake/items/{item_id}/delete", headers=who.headers, json=body
        )

    async def routed(self, item_id: int, seconds: float = 90.0) -> IntakeItem:
        """The item once the app's router is done with it (its thumbnail drawn ahead, or not:
        bff/intake/thumbnails.py), or once filed or deleted."""
        deadline = time.monotonic() + seconds
        while True:
            row = await IntakeItem.get(id=item_id)
            if row.routing == "done" or row.status != Status.NEW:
                return row
            assert time.monotonic() < deadline, f"item {item_id} not routed in {seconds} s"
            await asyncio.sleep(0.1)


@asynccontextmanager
async def open_desk(
    database_url: str, run_dir: Path, tmp_path: Path, clamd_address: str, **overrides: Any
) -> AsyncIterator[Desk]:
    """A desk on local storage of its own, screened by the clamd at clamd_address (overrides:
    other settings)."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        clamd=clamd_address,
        scan_seconds=10,
        **overrides,
    )
    async with started_app(settings) as app:
        yield await Desk(app, settings).setup()


@pytest.fixture(scope="module", name="clamd")
def clamd_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningClamd]:
    """A real clamd (tools/testclamd.py) for a module's tests."""
    with RunningClamd(tmp_path_factory.mktemp("clamd")) as running:
        yield running


@pytest.fixture(name="desk")
async def desk_fixture(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> AsyncIterator[Desk]:
    """A desk for one test."""
    async with open_desk(database_url, run_dir, tmp_path, clamd.address) as opened:
        yield opened
