"""Documents in the in-app viewer (issue 50, item 6): a Word .docx rendered in the worker pool to
sanitised HTML under a link of its own, with a strict CSP; a DOCX bomb refused from its ZIP
directory in a moment; an RTF shown as its text; a .docx's original only ever downloaded."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from PIL import Image

from bff.audit.models import AuditLog
from bff.files.documents import DOCX_BOMB, DOCX_TOO_LARGE_INSIDE, MAX_PART_BYTES
from bff.files.models import StoredFile
from bff.files.thumbnails import content_id
from bff.files.viewer import (
    DOCUMENT_TOO_SLOW,
    FILE_CHANGED,
    NO_CONTENT,
    VIEWER_CONTENT_LINK,
    VIEWER_HTML_LINK,
    VIEWER_LINK,
)
from bff.services import app_services
from tests.files.conftest import Ward
from tests.files.test_previews import _open, _signed
from tests.files.test_viewer_bombs import ward_with

MB = 1024 * 1024
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TRACKER = "https://tracker.example/pixel.png"
# No script (default-src 'none', a sandbox without allow-scripts); the app's origin kept, so
# the viewer sees a copy in the frame (issue 50).
HTML_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'; base-uri 'none'; form-action 'none'; sandbox allow-same-origin"
)


def _png(red: int = 200) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 20), (red, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def _hyperlink(paragraph: Any, url: str, text: str) -> None:
    r_id = paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), r_id)
    run, words = OxmlElement("w:r"), OxmlElement("w:t")
    words.text = text
    run.append(words)
    link.append(run)
    paragraph._p.append(link)


def letter(text: str = "Seen on the ward round; discharged home.") -> bytes:
    """A .docx made by python-docx: a heading, text, a table, a hyperlink to javascript: and
    one to a website, an embedded picture and a picture linked to a remote address."""
    document = docx.Document()
    document.add_heading("Discharge letter", 1)
    paragraph = document.add_paragraph(text + " ")
    _hyperlink(paragraph, "javascript:alert(document.cookie)", "Open the chart")
    _hyperlink(paragraph, "https://example.org/leaflet", "the leaflet")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "<script>alert(1)</script>"
    table.cell(0, 1).text = '<img src=x onerror="alert(1)">'
    document.add_picture(io.BytesIO(_png(200)))
    document.add_picture(io.BytesIO(_png(100)))  # another picture: a relationship of its own
    out = io.BytesIO()
    document.save(out)
    return _second_picture_linked(out.getvalue())


def _second_picture_linked(data: bytes) -> bytes:
    """The document's second picture made a link to TRACKER (TargetMode External): what a
    document that beacons when opened holds."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            part = source.read(info.filename)
            if info.filename == "word/document.xml":
                embeds = re.findall(rb'r:embed="(rId\d+)"', part)
                assert len(set(embeds)) == 2
                part = part.replace(b'r:embed="' + embeds[1] + b'"', b'r:link="rIdTracker"')
            if info.filename == "word/_rels/document.xml.rels":
                relation = (
                    f'<Relationship Id="rIdTracker" Type="{RT.IMAGE}" Target="{TRACKER}" '
                    'TargetMode="External"/></Relationships>'
                )
                part = part.replace(b"</Relationships>", relation.encode())
            target.writestr(info, part)
    return out.getvalue()


def docx_bomb(megabytes: int) -> bytes:
    """A .docx whose word/document.xml is `megabytes` MB of zeros, packed (a thousand to one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Override PartName="/word/document.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            zeros = bytes(MB)
            for _ in range(megabytes):
                part.write(zeros)
    return out.getvalue()


def long_docx(paragraphs: int) -> bytes:
    """A real .docx of `paragraphs` short paragraphs (packed some ten to one, within every
    bound of the ZIP check): mammoth converts some 2,500 a second (20,000 took it 7 s here)."""
    body = "".join(
        f"<w:p><w:r><w:t>Line {n} of the notes, {n * 7919 % 100003}.</w:t></w:r></w:p>"
        for n in range(paragraphs)
    )
    main = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    package = "http://schemas.openxmlformats.org/package/2006"
    office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            f'<?xml version="1.0"?><Types xmlns="{package}/content-types"><Default '
            'Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships'
            '+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.'
            'openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        archive.writestr(
            "_rels/.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{package}/relationships"><Relationship '
            f'Id="rId1" Type="{office}/officeDocument" Target="word/document.xml"/>'
            "</Relationships>",
        )
        archive.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document xmlns:w="{main}"><w:body>{body}</w:body>'
            "</w:document>",
        )
    return out.getvalue()


async def upload(ward: Ward, name: str, data: bytes, content_type: str = DOCX_TYPE) -> None:
    response = await ward.upload(
        ward.nurse, name, data, content_type=content_type, query={"overwrite": "true"}
    )
    assert response.status_code == 201, await response.get_data()


def assert_sanitised(page: str) -> None:
    lowered = page.lower()
    assert "<script" not in lowered and "javascript:" not in lowered
    assert not re.search(r"<[^>]*\son\w+\s*=", lowered), "no event handler attribute"
    assert "<form" not in lowered and "<iframe" not in lowered and "<object" not in lowered
    assert TRACKER not in page and "https://example.org" not in page
    for source in re.findall(r'src="([^"]*)"', page):
        assert source.startswith("data:image/png;base64,"), source


async def test_a_docx_is_read_as_sanitised_html_under_a_strict_csp(ward: Ward) -> None:
    await upload(ward, "letter.docx", letter())
    started = time.perf_counter()
    opened = await _open(ward, "letter.docx", ward.nurse)
    assert opened["kind"] == "html", opened
    assert opened["reason"] is None
    assert opened["textUrl"] is None and opened["imageUrl"] is None
    assert opened["pageUrl"] is None
    url = opened["htmlUrl"]
    assert "/html?link=" in url and ward.nurse.token not in url
    response = await ward.client.get(url)
    assert response.status_code == 200, await response.get_data()
    headers = response.headers
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == HTML_CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "SAMEORIGIN"
    assert headers["Cache-Control"].startswith("private, max-age=")
    page = await response.get_data(as_text=True)
    assert "Discharge letter" in page and "Seen on the ward round; discharged home." in page
    assert "Open the chart" in page and "the leaflet" in page  # a link's text stays
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the document's text, as text
    assert page.count("<img") == 1, "the embedded picture kept, the linked one dropped"
    assert_sanitised(page)
    assert time.perf_counter() - started < 20
    # One audited view; the page is covered by it.
    entries = await AuditLog.filter(operation="file_view", blob_name="letter.docx")
    assert [(e.user_id, e.details) for e in entries] == [(ward.nurse.user.id, "in the viewer")]
    # Every other answer keeps the app's own framing rule.
    listing = await ward.client.get(ward.url(), headers=ward.nurse.headers)
    assert listing.headers["X-Frame-Options"] == "DENY"


async def test_the_html_link_opens_nothing_else_and_nothing_else_opens_it(ward: Ward) -> None:
    await upload(ward, "letter.docx", letter())
    opened = await _open(ward, "letter.docx", ward.nurse)
    base, _, query = opened["htmlUrl"].partition("/html?")
    # The HTML link opens neither the original's bytes nor pages.
    for route in ("content", "pages/1?width=800&", "image"):
        sep = "&" if "?" in route else "?"
        response = await ward.client.get(f"{base}/{route.rstrip('&')}{sep}{query}")
        assert response.status_code in (403, 404), route
    # Links of the other purposes, or none (a signed-in caller's header), do not open it.
    version_id = content_id((await StoredFile.get(name="letter.docx")).version_id)
    for purpose in (VIEWER_LINK, VIEWER_CONTENT_LINK):
        link = _signed(ward, ward.nurse, purpose, "letter.docx", version_id)
        assert (await ward.client.get(f"{base}/html?link={link}")).status_code == 403
    assert (await ward.client.get(f"{base}/html", headers=ward.nurse.headers)).status_code == 404
    # The viewer's content route never serves a .docx's bytes, whatever link asks.
    link = _signed(ward, ward.nurse, VIEWER_CONTENT_LINK, "letter.docx", version_id)
    refused = await ward.client.get(f"{base}/content?link={link}")
    assert refused.status_code == 404
    assert (await refused.get_json())["message"] == NO_CONTENT


async def test_open_original_of_a_docx_is_a_download(ward: Ward) -> None:
    await upload(ward, "letter.docx", letter())
    response = await ward.client.get(ward.url("letter.docx", "view"), headers=ward.nurse.headers)
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert "sandbox" in response.headers["Content-Security-Policy"]


async def test_a_docx_bomb_is_refused_in_a_moment_with_a_reason(ward: Ward) -> None:
    """word/document.xml of 300 MB of zeros (300 KB packed), and one of 20 MB, within the
    per-part bound but packed a thousand to one: both refused from the ZIP's directory, well
    within the worker's time limit, and the pool serves on."""
    big, dense = docx_bomb(300), docx_bomb(20)
    assert len(big) < 2 * MB and 20 * MB < MAX_PART_BYTES
    await upload(ward, "bomb.docx", big)
    await upload(ward, "dense.docx", dense)
    pool = app_services(ward.app).workers
    for name, reason in (("bomb.docx", DOCX_TOO_LARGE_INSIDE), ("dense.docx", DOCX_BOMB)):
        started = time.perf_counter()
        opened = await _open(ward, name, ward.nurse)
        assert time.perf_counter() - started < 5, "refused from the directory, not by the limit"
        assert opened["kind"] == "other" and opened["reason"] == reason
        assert opened["htmlUrl"] is None
        # A link made for it anyway is refused with the same reason, as quickly.
        version_id = content_id((await StoredFile.get(name=name)).version_id)
        link = _signed(ward, ward.nurse, VIEWER_HTML_LINK, name, version_id)
        started = time.perf_counter()
        url = ward.url(name, "viewer", version_id, "html") + f"?link={link}"
        refused = await ward.client.get(url)
        assert time.perf_counter() - started < 5
        assert refused.status_code == 422
        assert (await refused.get_json())["message"] == reason
    assert pool.pids, "no worker was killed"
    await upload(ward, "letter.docx", letter())
    assert (await _open(ward, "letter.docx", ward.nurse))["kind"] == "html"


async def test_a_docx_too_slow_to_show_is_refused_at_once_when_opened_again(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    """The review's replay: a .docx that runs out of time was rendered again at every open,
    each holding a worker for the whole BFF_PREVIEW_SECONDS. Its refusal is remembered for
    that content version: opening it again (or its html link) runs nothing in the pool."""
    async with ward_with(database_url, run_dir, tmp_path, preview_seconds=4) as ward:
        await upload(ward, "long.docx", long_docx(100_000))
        opened = await _open(ward, "long.docx", ward.nurse)
        assert opened["kind"] == "other" and opened["reason"] == DOCUMENT_TOO_SLOW, opened
        # One idle worker, which a rendering would take (and lose to the time limit).
        await upload(ward, "letter.docx", letter())
        assert (await _open(ward, "letter.docx", ward.nurse))["kind"] == "html"
        pool = app_services(ward.app).workers
        idle = set(pool.pids)
        assert idle and not pool.running_pids
        for _ in range(3):
            again = await _open(ward, "long.docx", ward.nurse)
            assert again["kind"] == "other" and again["reason"] == DOCUMENT_TOO_SLOW
        version_id = content_id((await StoredFile.get(name="long.docx")).version_id)
        link = _signed(ward, ward.nurse, VIEWER_HTML_LINK, "long.docx", version_id)
        refused = await ward.client.get(
            ward.url("long.docx", "viewer", version_id, "html") + f"?link={link}"
        )
        assert refused.status_code == 422
        assert (await refused.get_json())["message"] == DOCUMENT_TOO_SLOW
        assert set(pool.pids) == idle, "no rendering ran (one would have lost its worker)"
        # Each open is still audited as a view.
        views = await AuditLog.filter(operation="file_view", blob_name="long.docx").count()
        assert views == 4
        # A new content version is rendered anew.
        await upload(ward, "long.docx", letter("Shorter now."))
        assert (await _open(ward, "long.docx", ward.nurse))["kind"] == "html"


async def test_a_held_or_changed_docx_is_not_served(ward: Ward) -> None:
    await upload(ward, "letter.docx", letter())
    opened = await _open(ward, "letter.docx", ward.nurse)
    assert (await ward.client.get(opened["htmlUrl"])).status_code == 200  # now in the cache
    await StoredFile.filter(name="letter.docx").update(scan_state="held")
    held = await ward.client.get(opened["htmlUrl"])
    assert held.status_code == 404
    assert b"Seen on the ward" not in await held.get_data()
    await StoredFile.filter(name="letter.docx").update(scan_state="clean")
    await upload(ward, "letter.docx", letter("A second content."))
    changed = await ward.client.get(opened["htmlUrl"])
    assert changed.status_code in (404, 409)
    assert (await changed.get_json())["message"] == FILE_CHANGED
    reopened = await _open(ward, "letter.docx", ward.nurse)
    page = await (await ward.client.get(reopened["htmlUrl"])).get_data()
    assert b"A second content." in page


async def test_an_rtf_is_shown_as_its_text(ward: Ward) -> None:
    """An RTF upload is listed as its text (a .txt: text as ever); an RTF another tool put in
    storage (reindexed, listed as .rtf) opens as its text too, read in the worker pool."""
    rtf = rb"{\rtf1\ansi\deff0{\fonttbl{\f0 Helvetica;}}\f0\fs24 Blood pressure 120/80.\par}"
    uploaded = await ward.upload(ward.nurse, "visit.rtf", rtf, content_type="application/rtf")
    assert uploaded.status_code == 201
    opened = await _open(ward, "visit.txt", ward.nurse)
    assert opened["kind"] == "text"
    assert b"Blood pressure" in await (await ward.client.get(opened["textUrl"])).get_data()

    async def chunks() -> Any:
        yield rtf

    from bff.files.reindex import reindex

    await ward.storage.write(ward.container.name, ward.folder.name, "letter.rtf", chunks())
    await reindex(ward.storage)
    opened = await _open(ward, "letter.rtf", ward.nurse)
    assert opened["kind"] == "text" and opened["reason"] is None, opened
    url = opened["textUrl"]
    assert "/text?link=" in url
    response = await ward.client.get(url)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert "sandbox" in response.headers["Content-Security-Policy"]
    text = await response.get_data(as_text=True)
    assert "Blood pressure 120/80." in text and "\\rtf" not in text
    # Its raw bytes never come through the content route.
    version_id = content_id((await StoredFile.get(name="letter.rtf")).version_id)
    link = _signed(ward, ward.nurse, VIEWER_CONTENT_LINK, "letter.rtf", version_id)
    base = url.partition("/text?")[0]
    assert (await ward.client.get(f"{base}/content?link={link}")).status_code == 404
