"""Viewing files: signed links, the auth query (when enabled), ranges, safe headers, deletion."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from bff.audit.models import AuditLog
from bff.auth import links
from bff.auth.sessions import open_session
from tests import samples
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, make_file
from tests.files.conftest import Ward

CONTENT = samples.pdf("Scan " * 2000)  # a real PDF of about 10 KB


async def _link(ward: Ward, name: str, who: object = None) -> str:
    staff = who or ward.nurse
    response = await ward.client.get(ward.url(name, "url"), headers=staff.headers)  # type: ignore[attr-defined]
    assert response.status_code == 200, await response.get_data()
    body = await response.get_json()
    assert body["expiresAt"].endswith("Z")
    url: str = body["url"]
    assert "x-auth-token" not in url and staff.token not in url  # type: ignore[attr-defined]
    return url


async def test_a_signed_link_streams_the_file_with_ranges(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.pdf", CONTENT)).status_code == 201
    url = await _link(ward, "scan.pdf")
    whole = await ward.client.get(url)  # no header: the link alone opens it
    assert whole.status_code == 200
    assert await whole.get_data() == CONTENT
    assert whole.headers["Content-Type"] == "application/pdf"
    assert whole.headers["Content-Length"] == str(len(CONTENT))
    assert whole.headers["Accept-Ranges"] == "bytes"
    assert whole.headers["X-Content-Type-Options"] == "nosniff"
    assert whole.headers["Content-Disposition"].startswith("inline;")
    part = await ward.client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206
    assert part.headers["Content-Range"] == f"bytes 100-199/{len(CONTENT)}"
    assert await part.get_data() == CONTENT[100:200]
    tail = await ward.client.get(url, headers={"Range": "bytes=-16"})
    assert await tail.get_data() == CONTENT[-16:]
    outside = await ward.client.get(url, headers={"Range": "bytes=999999-"})
    assert outside.status_code == 416
    assert outside.headers["Content-Range"] == f"bytes */{len(CONTENT)}"
    nonsense = await ward.client.get(url, headers={"Range": "pages=1-2"})
    assert nonsense.status_code == 200  # an unusable Range header is ignored
    views = await AuditLog.filter(operation="file_view", blob_name="scan.pdf").count()
    assert views == 4


async def test_a_link_opens_only_its_own_file(ward: Ward) -> None:
    for name in ("a.txt", "b.txt"):
        assert (await ward.upload(ward.nurse, name, name.encode())).status_code == 201
    url = await _link(ward, "a.txt")
    query = urlsplit(url).query
    other = await ward.client.get(ward.url("b.txt", "view") + "?" + query)
    assert other.status_code == 403
    tampered = url[:-3] + ("AAA" if not url.endswith("AAA") else "BBB")
    assert (await ward.client.get(tampered)).status_code == 403
    assert (await ward.client.get(ward.url("a.txt", "view"))).status_code == 401


LINK = re.compile(r"link=(\d+)\.([^.&]+)\.([^&]+)")  # expiry.session.signature


def _session_part(url: str) -> str:
    found = LINK.search(url)
    assert found is not None, url
    return found.group(2)


def _with_session_part(url: str, session_part: str) -> str:
    """url with its link's session part replaced, its expiry and signature kept."""
    return LINK.sub(lambda m: f"link={m.group(1)}.{session_part}.{m.group(3)}", url)


async def _viewer_link(ward: Ward, name: str, who: StaffMember) -> str:
    response = await ward.client.get(ward.url(name, "viewer"), headers=who.headers)
    assert response.status_code == 200, await response.get_data()
    url: str = (await response.get_json())["textUrl"]
    return url


async def test_a_link_with_another_live_sessions_part_is_refused(ward: Ward) -> None:
    """A view link and a viewer link whose session part is replaced by another live session's
    (the same user's second sign-in, another user who may see the folder): refused as any
    bad link is (403, nothing served, no entry: there is no signed-in caller to record), while
    every link as it was minted still opens. The signature covers the session, so a link seen
    in one session's history opens nothing under another. (Issue 48's mutation audit: a
    signature over the expiry and path alone went unnoticed.)"""
    assert (await ward.upload(ward.nurse, "a.txt", b"alpha")).status_code == 201
    assert (await ward.upload(ward.nurse, "notes.txt", b"Allergy: penicillin")).status_code == 201
    again = StaffMember(ward.nurse.user, await open_session(ward.nurse.user, ward.settings, "::1"))
    staff = [ward.nurse, again, ward.assistant, ward.admin]
    view = [await _link(ward, "a.txt", who) for who in staff]
    viewer = [await _viewer_link(ward, "notes.txt", who) for who in staff]
    for minted, content in ((view, b"alpha"), (viewer, b"Allergy: penicillin")):
        assert len({_session_part(url) for url in minted}) == len(staff)  # four live sessions
        for url in minted:
            opened = await ward.client.get(url)
            assert opened.status_code == 200 and await opened.get_data() == content
    entries = await AuditLog.all().count()
    tampered = view[0][:-3] + ("AAA" if not view[0].endswith("AAA") else "BBB")
    bad = await ward.client.get(tampered)
    assert bad.status_code == 403 and (await bad.get_json())["message"] == links.LINK_INVALID
    # An expiry of digits that are not ASCII ("²" is a digit to Python, int() refuses it).
    expiry = view[0].split("link=")[1].split(".")[0]
    odd = await ward.client.get(view[0].replace(f"link={expiry}.", "link=%C2%B2."))
    assert odd.status_code == 403 and (await odd.get_json())["message"] == links.LINK_INVALID
    assert await AuditLog.all().count() == entries  # what a bad link leaves in the log: nothing
    for minted in (view, viewer):
        for n, url in enumerate(minted):
            for other in minted[:n] + minted[n + 1 :]:
                swapped = await ward.client.get(_with_session_part(url, _session_part(other)))
                assert swapped.status_code == 403, await swapped.get_data()
                assert await swapped.get_json() == {"message": links.LINK_INVALID}
    assert await AuditLog.all().count() == entries


async def test_a_link_dies_with_its_session_and_its_time(
    ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (await ward.upload(ward.nurse, "a.txt", b"alpha")).status_code == 201
    url = await _link(ward, "a.txt")
    assert (await ward.client.get(url)).status_code == 200
    real_time = links.time.time
    monkeypatch.setattr(links.time, "time", lambda: real_time() + 301)
    expired = await ward.client.get(url)
    assert expired.status_code == 403
    assert "expired" in (await expired.get_json())["message"]
    monkeypatch.setattr(links.time, "time", real_time)
    await ward.client.post("/api/auth/logout", headers=ward.nurse.headers)
    assert (await ward.client.get(url)).status_code == 401


async def test_a_link_stops_working_when_the_folder_is_unassigned(ward: Ward) -> None:
    from bff.assignments.models import FolderAssignment

    assert (await ward.upload(ward.nurse, "a.txt", b"alpha")).status_code == 201
    url = await _link(ward, "a.txt")
    assert (await ward.client.get(url)).status_code == 200
    assignment = await FolderAssignment.get(user_id=ward.nurse.user.id)
    unassigned = await ward.client.delete(
        f"/api/assignments/{assignment.id}?type=folder", headers=ward.admin.headers
    )
    assert unassigned.status_code == 200
    response = await ward.client.get(url)
    assert response.status_code == 404


async def test_the_session_token_in_the_url_is_refused_by_default(ward: Ward) -> None:
    """Issue 15 point 8: `?auth=<session token>` would put an 8-hour credential into browser
    history and proxy logs; unless BFF_ALLOW_TOKEN_IN_URL enables it, it opens nothing."""
    assert not ward.settings.allow_token_in_url
    assert (await ward.upload(ward.nurse, "a.txt", b"alpha")).status_code == 201
    response = await ward.client.get(
        ward.url("a.txt", "view"), query_string={"t": "1", "auth": ward.assistant.token}
    )
    assert response.status_code == 401
    assert b"alpha" not in await response.get_data()
    assert await AuditLog.filter(operation="file_view").count() == 0


async def test_the_auth_query_of_the_spec_opens_a_file_when_enabled(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", allow_token_in_url=True
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "a.txt", b"alpha")).status_code == 201
        response = await ward.client.get(
            ward.url("a.txt", "view"), query_string={"t": "1", "auth": ward.assistant.token}
        )
        assert response.status_code == 200
        assert await response.get_data() == b"alpha"
        bad = await ward.client.get(ward.url("a.txt", "view"), query_string={"auth": "nope"})
        assert bad.status_code == 401
        # only the view routes take it: everything else still needs the header
        listing = await ward.client.get(ward.url(), query_string={"auth": ward.assistant.token})
        assert listing.status_code == 401


async def test_views_of_other_folders_and_missing_files(ward: Ward) -> None:
    assert (await ward.upload(ward.admin, "x.txt", b"x", folder=ward.other)).status_code == 201
    url = ward.url("x.txt", "url", folder=ward.other)
    assert (await ward.client.get(url, headers=ward.nurse.headers)).status_code == 404
    missing = await ward.client.get(ward.url("nothing.txt", "url"), headers=ward.nurse.headers)
    assert missing.status_code == 404
    assert (await missing.get_json())["message"] == "File not found"


@pytest.mark.parametrize("name", ["page.html", "drawing.svg", "data.xml", "tool.js", "blob.bin"])
async def test_active_content_is_downloaded_in_a_sandbox(web_ward: Ward, name: str) -> None:
    ward = web_ward  # web pages allowed: the default refuses this page under any name
    payload = b"<script>alert(document.cookie)</script>"
    if name.endswith(".js"):  # a script is refused now (a program): one stored before that was
        await make_file(ward.storage, ward.folder, name, payload, "text/javascript")
    else:
        assert (await ward.upload(ward.nurse, name, payload)).status_code == 201
    response = await ward.client.get(await _link(ward, name))
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert "sandbox" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


async def test_odd_file_names_cannot_break_the_headers(ward: Ward) -> None:
    name = 'Résumé "final"; v2.txt'
    parts = [("filename", None, name.encode()), ("file", "cv.txt", b"cv")]
    assert (await ward.form_upload(ward.nurse, parts)).status_code == 201
    url = await _link(ward, name)
    assert "link" in parse_qs(urlsplit(url).query)
    response = await ward.client.get(url)
    assert response.status_code == 200
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith('inline; filename="R_sum_ _final__ v2.txt"')
    assert "filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%3B%20v2.txt" in disposition


async def test_admins_delete_files_and_others_cannot(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "old.txt", b"old")).status_code == 201
    nurse = await ward.client.delete(ward.url("old.txt"), headers=ward.nurse.headers)
    assert nurse.status_code == 403
    admin = await ward.client.delete(ward.url("old.txt"), headers=ward.admin.headers)
    assert admin.status_code == 200
    assert (await admin.get_json())["message"] == "File deleted successfully"
    assert await ward.stored("old.txt") is None
    assert (await ward.listing(ward.nurse))["blobs"] == []
    assert await AuditLog.filter(operation="file_delete", blob_name="old.txt").count() == 1
    again = await ward.client.delete(ward.url("old.txt"), headers=ward.admin.headers)
    assert again.status_code == 404


async def test_a_viewer_stays_in_the_apps_browsing_context_group(ward: Ward) -> None:
    """The app closes its viewer tabs at sign-out: its pages let their popups stay in their
    browsing context group and a view does not ask for a group of its own (COOP)."""
    assert (await ward.upload(ward.nurse, "labs.txt", b"K 4.1")).status_code == 201
    view = await ward.client.get(await _link(ward, "labs.txt"))
    assert view.status_code == 200
    assert view.headers["Cross-Origin-Opener-Policy"] == "unsafe-none"
    assert "script-src" not in view.headers["Content-Security-Policy"]  # default-src 'none'
    assert view.headers["Content-Security-Policy"].startswith("default-src 'none'")
    page = await ward.client.get("/login")
    assert page.headers["Cross-Origin-Opener-Policy"] == "same-origin-allow-popups"
    api = await ward.client.get(ward.url(), headers=ward.nurse.headers)
    assert api.headers["Cross-Origin-Opener-Policy"] == "same-origin-allow-popups"
