"""The emergency page's first load: with a live grant whose patient has a photo, the page's
answer names the photo in a preload Link, so the browser fetches it while the app loads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bff.audit.models import AuditLog
from bff.files.models import StoredFile
from tests.conftest import make_settings, started_app
from tests.emergency.test_emergency_access import Scene
from tests.helpers import web_app_index


@pytest.fixture
async def scene(database_url: str, run_dir: Path) -> AsyncIterator[Scene]:
    async with started_app(make_settings(database_url, run_dir)) as app:
        yield await Scene(app).setup()


async def test_the_page_of_a_live_grant_preloads_the_patients_photo(scene: Scene) -> None:
    assert (await scene.scan()).status_code == 303
    audited = await AuditLog.all().count()
    page = await scene.browser.get("/emergency")
    assert page.status_code == 200
    assert await page.get_data() == web_app_index()
    photo = f"/api/blobs/{scene.container}/patient-7/profile-image"
    assert page.headers["Link"] == f"<{photo}>; rel=preload; as=image; fetchpriority=high"
    assert page.headers["Cache-Control"] == "no-store"  # it names the patient's folder
    assert await AuditLog.all().count() == audited  # loading the page reads no patient data
    assert (await scene.browser.get(photo)).status_code == 200  # the URL the page then uses


async def test_no_preload_without_a_grant_or_without_a_photo(scene: Scene) -> None:
    page = await scene.browser.get("/emergency")
    assert page.status_code == 200
    assert "Link" not in page.headers
    assert page.headers["Cache-Control"] == "no-cache"
    assert (await scene.scan()).status_code == 303
    await StoredFile.filter(folder_id=scene.folder.id, name="patient-profile.jpg").delete()
    page = await scene.browser.get("/emergency")
    assert page.status_code == 200
    assert "Link" not in page.headers


async def test_no_preload_of_a_held_photo(scene: Scene) -> None:
    """A photo stored while the malware scanner was unavailable (held: the admins' only until a
    clean scan, issue 49) is not there for the responder. Before: the page's preload Link named
    it, though its route and the responder's view said there was none."""
    assert (await scene.scan()).status_code == 303
    await StoredFile.filter(folder_id=scene.folder.id, name="patient-profile.jpg").update(
        scan_state="held"
    )
    page = await scene.browser.get("/emergency")
    assert page.status_code == 200
    assert "Link" not in page.headers
    view = await scene.browser.get("/api/emergency/session")
    assert (await view.get_json())["hasProfileImage"] is False
    photo = f"/api/blobs/{scene.container}/patient-7/profile-image"
    refused = await scene.browser.get(photo)
    assert (refused.status_code, await refused.get_json()) == (
        404,
        {"message": "This folder has no profile image."},
    )
