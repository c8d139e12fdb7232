"""The content checks of every upload (issue 49, bff/files/content.py), through the real app and
database: the type decided from the bytes, empty, mislabelled, executable and damaged files
refused with what they are, PDFs with active content flagged (or refused by setting)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pytest import MonkeyPatch

from bff.files import content, pdf_active
from bff.files.previews import pdf_findings
from config.settings import SettingsError, load_settings
from tests import samples
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tests.helpers import error_message


@pytest.fixture
async def strict_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward refusing PDFs with active content, keeping damaged ones, accepting ZIPs."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        damaged_pdf="keep",
        pdf_active_content="refuse",
        allowed_types="pdf,text,zip,office",
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


@pytest.fixture
async def keeping_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward keeping damaged PDFs and flagging active content."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", damaged_pdf="keep"
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


async def _refused(ward: Ward, name: str, data: bytes) -> str:
    message = await error_message(await ward.upload(ward.nurse, name, data), 422)
    assert await ward.stored(name) is None
    return message


async def _blob(ward: Ward, name: str) -> dict[str, object]:
    listing = await ward.listing(ward.nurse)
    [blob] = [b for b in listing["blobs"] if b["name"] == name]
    return dict(blob)


async def test_an_empty_file_is_refused(ward: Ward) -> None:
    for name in ("empty.pdf", "empty.txt", "empty"):
        assert await _refused(ward, name, b"") == "The file is empty"
    assert (await ward.listing(ward.nurse))["blobs"] == []


async def test_a_damaged_pdf_is_refused(ward: Ward) -> None:
    message = await _refused(ward, "scan.pdf", samples.damaged_pdf())
    assert message == "This PDF is damaged and cannot be opened; it was not saved."
    # Half of a real PDF (an interrupted download) too.
    message = await _refused(ward, "cut.pdf", samples.pdf()[:150])
    assert message == content.PDF_DAMAGED


async def test_a_damaged_pdf_kept_by_setting_cannot_be_displayed(keeping_ward: Ward) -> None:
    """Kept, and flagged as not checked for active content: qpdf cannot read it either."""
    ward = keeping_ward
    response = await ward.upload(ward.nurse, "scan.pdf", samples.damaged_pdf())
    assert response.status_code == 201, await response.get_data()
    blob = await _blob(ward, "scan.pdf")
    assert blob["displayable"] is False and blob["activeContent"] == content.NOT_CHECKED
    opened = await ward.client.get(ward.url("scan.pdf", "viewer"), headers=ward.nurse.headers)
    assert opened.status_code == 200, await opened.get_data()
    viewer = await opened.get_json()
    assert viewer["kind"] == "other" and viewer["displayable"] is False
    assert "cannot be displayed" in viewer["reason"]
    # A good PDF beside it is displayable.
    assert (await ward.upload(ward.nurse, "good.pdf", samples.pdf())).status_code == 201
    assert (await _blob(ward, "good.pdf"))["displayable"] is True


async def test_a_file_whose_bytes_contradict_its_name_is_refused(ward: Ward) -> None:
    message = await _refused(ward, "results.pdf", samples.png())
    assert message == "This file is not a PDF: its contents are a PNG image."
    message = await _refused(ward, "photo.jpg", samples.pdf())
    assert message == "This file is not an image: its contents are a PDF."
    message = await _refused(ward, "notes.txt", samples.pdf())
    assert message == "This file is not a text file: its contents are a PDF."
    message = await _refused(ward, "letter.docx", b"Dear colleague,\n")
    assert message == "This file is not an Office document: its contents are plain text."
    # Within a kind a name may say another format: a phone's JPEG named .png is an image.
    assert (await ward.upload(ward.nurse, "photo.png", samples.jpeg())).status_code == 201


async def test_programs_are_refused_under_any_name(ward: Ward) -> None:
    windows = (
        "This file was not saved: it is a program (Windows executable), and programs are not "
        "accepted."
    )
    for name in ("setup", "setup.txt", "setup.pdf", "setup.exe"):
        assert await _refused(ward, name, samples.windows_exe()) == windows
    linux = content.program_refused("Linux executable (ELF)")
    assert await _refused(ward, "tool", samples.elf()) == linux
    assert await _refused(ward, "run.txt", b"#!/bin/sh\nrm -rf /\n") == content.program_refused(
        "script"
    )
    # The review's names: a trailing dot Windows drops, a registry file.
    bat = content.program_refused(".bat file")
    assert await _refused(ward, "evil.bat.", b"del *.*\r\n") == bat
    assert await _refused(ward, "keys.reg", b"Windows Registry Editor Version 5.00\r\n") == (
        content.program_refused(".reg file")
    )
    # A name that says program is refused whatever the bytes (a batch file is text).
    assert await _refused(ward, "fix.bat", b"del *.*\r\n") == content.program_refused(".bat file")
    java = content.program_refused("Java archive")
    jar = samples.zip_of({"META-INF/MANIFEST.MF": b"Main-Class: X\n", "X.class": b"\xca\xfe"})
    assert await _refused(ward, "tool.zip", jar) == java


async def test_zip_refused_by_default_and_office_documents_accepted(ward: Ward) -> None:
    archive = samples.zip_of({"a.txt": b"one", "b.txt": b"two"})
    message = await _refused(ward, "records.zip", archive)
    assert message == "This file was not saved: ZIP archive files are not accepted here."
    # Nor under another name.
    message = await _refused(ward, "records", archive)
    assert message == content.kind_refused("ZIP archive")
    for name, data in (("letter.docx", samples.docx()), ("letter.odt", samples.odt())):
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, await response.get_data()
        assert (await _blob(ward, name))["activeContent"] == ""


async def test_office_shapes_hiding_programs_or_macros_are_refused(strict_ward: Ward) -> None:
    """The review's bypasses: an entry name makes no Office document (its main part does), and
    a container holding a program or macros is a program, whatever it is named."""
    ward = strict_ward  # zip and office allowed
    payload = samples.zip_of({"[Content_Types].xml": b"<Types/>", "payload.exe": b"MZ"})
    for name in ("x.zip", "x.docx", "x"):
        message = await _refused(ward, name, payload)
        assert message == content.program_refused("archive holding a program")
    macros = samples.zip_of(
        {
            "[Content_Types].xml": b"<Types/>",
            "word/document.xml": b"<w:document/>",
            "word/vbaProject.bin": b"\xd0\xcf\x11\xe0",
        }
    )
    for name in ("report.docx", "report.zip"):
        message = await _refused(ward, name, macros)
        assert message == content.program_refused("Office document with macros")
    # A macro-enabled name is refused whatever it holds.
    assert await _refused(ward, "report.docm", samples.docx()) == content.program_refused(
        ".docm file"
    )
    # Only a [Content_Types].xml: a ZIP, not a Word document.
    shell = samples.zip_of({"[Content_Types].xml": b"<Types/>", "notes.txt": b"x"})
    message = await _refused(ward, "letter.docx", shell)
    assert message == content.not_what_named("an Office document", "a ZIP archive")


async def test_a_zip_is_told_by_its_whole_directory(strict_ward: Ward) -> None:
    """A ZIP whose first entry is not [Content_Types].xml is still a Word document, and a ZIP
    is a ZIP wherever its Java classes are."""
    ward = strict_ward
    names = {f"pad/{i:03}.txt": bytes(i) for i in range(200)}
    late_word = samples.zip_of(
        {**names, "[Content_Types].xml": b"<Types/>", "word/document.xml": b""}
    )
    assert (await ward.upload(ward.nurse, "late.docx", late_word)).status_code == 201
    late_jar = samples.zip_of({**names, "x/Main.class": b"\xca\xfe\xba\xbe"})
    message = await _refused(ward, "late.zip", late_jar)
    assert message == content.program_refused("Java archive")
    assert (await ward.upload(ward.nurse, "plain.zip", samples.zip_of(names))).status_code == 201


async def test_dicom_text_csv_and_accented_text_are_accepted(ward: Ward) -> None:
    accepted = {
        "chest.dcm": samples.dicom(),
        "chest": samples.dicom(),
        "notes.txt": b"Blood pressure 120/80\n",
        "results.csv": b"date,value\n2026-01-02,5.4\n",
        "lettre.txt": "Température élevée, état stable.\n".encode(),
        "lettre-1252.txt": "Température élevée\r\n".encode("cp1252"),
        "utf16.txt": "Température".encode("utf-16"),
    }
    for name, data in accepted.items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, (name, await response.get_data())
    assert {b["name"] for b in (await ward.listing(ward.nurse))["blobs"]} == set(accepted)


async def test_a_type_not_allowed_is_refused(strict_ward: Ward) -> None:
    ward = strict_ward  # allowed: pdf,text,zip,office
    message = await _refused(ward, "photo.png", samples.png())
    assert message == "This file was not saved: PNG image files are not accepted here."
    message = await _refused(ward, "blob.bin", bytes(range(256)) * 4)
    assert message == "This file was not saved: files of an unknown type are not accepted here."


async def test_a_pdf_with_javascript_is_flagged(ward: Ward) -> None:
    response = await ward.upload(ward.nurse, "results.pdf", samples.pdf_with_javascript())
    assert response.status_code == 201, await response.get_data()
    body = await response.get_json()
    assert body["blob"]["activeContent"] == "JavaScript"
    assert (await _blob(ward, "results.pdf"))["activeContent"] == "JavaScript"
    opened = await ward.client.get(ward.url("results.pdf", "viewer"), headers=ward.nurse.headers)
    viewer = await opened.get_json()
    assert viewer["kind"] == "pdf" and viewer["activeContent"] == "JavaScript"
    # Launch actions and embedded files too.
    await ward.upload(ward.nurse, "launch.pdf", samples.pdf_with_launch())
    assert (await _blob(ward, "launch.pdf"))["activeContent"] == "launch actions"
    await ward.upload(ward.nurse, "attached.pdf", samples.pdf_with_attachment())
    assert (await _blob(ward, "attached.pdf"))["activeContent"] == "embedded files"
    # A plain PDF has none.
    await ward.upload(ward.nurse, "plain.pdf", samples.pdf())
    assert (await _blob(ward, "plain.pdf"))["activeContent"] == ""


async def test_a_pdf_with_active_content_is_refused_by_setting(strict_ward: Ward) -> None:
    ward = strict_ward
    message = await _refused(ward, "results.pdf", samples.pdf_with_javascript())
    assert message == (
        "This PDF contains active content (JavaScript) and PDFs with active content are not "
        "accepted here."
    )
    message = await _refused(ward, "attached.pdf", samples.pdf_with_attachment())
    assert message == content.active_refused("embedded files")
    assert (await ward.upload(ward.nurse, "plain.pdf", samples.pdf())).status_code == 201


# The review's bypasses of the PDF checks (issue 49): names in #xx escapes, actions inside
# compressed object streams, actions reached through /OpenAction or a page's /AA, an embedded
# file behind an annotation past the pages pdfium looked at; an XFA form's script; and one qpdf
# cannot read.
HIDDEN = {
    "escaped.pdf": (samples.pdf_with_escaped_javascript, "JavaScript"),
    "compressed.pdf": (samples.pdf_with_javascript_in_object_stream, "JavaScript"),
    "page-launch.pdf": (samples.pdf_with_page_launch, "launch actions"),
    "attached.pdf": (samples.pdf_with_attachment_in_object_stream, "embedded files"),
    "form.pdf": (samples.pdf_with_xfa_script, "JavaScript"),
    # The second review's: an XFA form with a PNG predictor, a 3D artwork's script, a launch
    # action whose /S is given by reference.
    "predictor.pdf": (samples.pdf_with_xfa_script_after_predictor, "JavaScript"),
    "3d.pdf": (samples.pdf_with_3d_javascript, "JavaScript"),
    "indirect.pdf": (samples.pdf_with_indirect_launch, "launch actions"),
}


async def test_active_content_hidden_from_the_bytes_is_flagged(ward: Ward) -> None:
    for name, (make, found) in HIDDEN.items():
        response = await ward.upload(ward.nurse, name, make())
        assert response.status_code == 201, (name, await response.get_data())
        assert (await response.get_json())["blob"]["activeContent"] == found, name
        assert (await _blob(ward, name))["activeContent"] == found, name
    await ward.upload(ward.nurse, "plain.pdf", samples.pdf())
    assert (await _blob(ward, "plain.pdf"))["activeContent"] == ""


async def test_active_content_hidden_from_the_bytes_is_refused_by_setting(
    strict_ward: Ward,
) -> None:
    ward = strict_ward
    for name, (make, found) in HIDDEN.items():
        assert await _refused(ward, name, make()) == content.active_refused(found), name
    assert (await ward.upload(ward.nurse, "plain.pdf", samples.pdf())).status_code == 201


async def test_a_pdf_too_large_to_check_is_refused(ward: Ward) -> None:
    """Past pdf_active.MAX_OBJECTS objects a PDF is not looked at, so it is not passed as
    checked (a bypass would hide its action after them)."""
    data = samples.pdf_with_objects(pdf_active.MAX_OBJECTS + 1)
    assert await _refused(ward, "many.pdf", data) == content.PDF_TOO_LARGE


def test_a_walk_cut_short_is_never_a_clean_pdf(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """pdf_findings itself (as the worker runs it): a PDF whose objects were not all looked at
    within the time given or the bounds is "slow" or "large", whatever was found before."""
    path = tmp_path / "compressed.pdf"
    path.write_bytes(samples.pdf_with_javascript_in_object_stream())
    assert pdf_findings(str(path), 20) == ("ok", ("JavaScript",), "")
    assert pdf_findings(str(path), 1e-9)[0] == "slow"
    monkeypatch.setattr(pdf_active, "MAX_OBJECTS", 3)
    assert pdf_findings(str(path), 20)[0] == "large"
    monkeypatch.setattr(pdf_active, "MAX_OBJECTS", 1000)
    monkeypatch.setattr(pdf_active, "MAX_ITEMS", 1)
    assert pdf_findings(str(path), 20)[0] == "large"


# The second review's PDFs whose objects cannot all be looked at (issue 49): never passed as
# checked. Refused with BFF_PDF_ACTIVE_CONTENT=refuse, whatever BFF_DAMAGED_PDF says; kept and
# flagged "could not be checked" with flag.
def _unchecked() -> dict[str, tuple[bytes, str]]:
    return {
        "cut.pdf": (samples.pdf_cut_before_startxref(), content.PDF_NOT_CHECKED),
        "padded.pdf": (
            samples.pdf_with_javascript_beside_a_memory_bomb(),
            content.PDF_NOT_CHECKED,
        ),
        "long-form.pdf": (
            samples.pdf_with_xfa_script_after_padding(pdf_active.XFA_BYTES + 1024),
            content.PDF_NOT_CHECKED,
        ),
        "protected.pdf": (
            samples.pdf_with_javascript_behind_password(),
            content.PDF_PASSWORD_NOT_CHECKED,
        ),
    }


async def test_a_pdf_that_cannot_be_looked_into_is_refused_by_setting(strict_ward: Ward) -> None:
    """qpdf cannot open it (pdfium repairs it), an object stream qpdf cannot read within the
    worker's memory, an XFA form longer than the search, a user password: with active content
    refused, each is refused for what could not be checked (the bytes name nothing)."""
    ward = strict_ward
    for name, (data, message) in _unchecked().items():
        assert await _refused(ward, name, data) == message, name
    # Past MAX_OBJECTS, with BFF_DAMAGED_PDF=keep: refused too, not stored downloadable.
    data = samples.pdf_with_objects(pdf_active.MAX_OBJECTS + 1, javascript=True)
    assert await _refused(ward, "many.pdf", data) == content.PDF_NOT_CHECKED


async def test_a_pdf_that_cannot_be_looked_into_is_flagged(keeping_ward: Ward) -> None:
    ward = keeping_ward
    for name, (data, _) in _unchecked().items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, (name, await response.get_data())
        blob = await _blob(ward, name)
        assert blob["activeContent"] == content.NOT_CHECKED, name
        assert blob["displayable"] is True, name  # pdfium opens each: the viewer decides
    data = samples.pdf_with_objects(pdf_active.MAX_OBJECTS + 1, javascript=True)
    assert (await ward.upload(ward.nurse, "many.pdf", data)).status_code == 201
    blob = await _blob(ward, "many.pdf")
    assert blob["activeContent"] == content.NOT_CHECKED and blob["displayable"] is False
    # What the bytes name is said with it.
    data = samples.pdf_with_escaped_javascript_behind_password()
    assert (await ward.upload(ward.nurse, "escaped.pdf", data)).status_code == 201
    blob = await _blob(ward, "escaped.pdf")
    assert blob["activeContent"] == f"JavaScript, {content.NOT_CHECKED}"
    # The viewer tells a protected PDF as before.
    opened = await ward.client.get(ward.url("protected.pdf", "viewer"), headers=ward.nurse.headers)
    assert opened.status_code == 200, await opened.get_data()
    assert (await opened.get_json())["activeContent"] == content.NOT_CHECKED


def test_escaped_names_are_found_in_the_bytes_across_chunks(tmp_path: Path) -> None:
    """The search of the bytes (when qpdf cannot read a PDF): each name however it is escaped,
    also across the search's 1 MB chunks, and not a longer name that starts alike."""
    path = tmp_path / "bytes.pdf"
    for text, found in (
        (b"/S /J#61vaScript", {"JavaScript"}),
        (b"/#4A#53 (x)", {"JavaScript"}),
        (b"/S /L#61unch", {"launch actions"}),
        (b"/#45#6d#62#65#64#64#65#64#46#69#6c#65#73 [", {"embedded files"}),
        (b"/JavaScriptish /Launcher /JSON", set()),
    ):
        for at in (0, 1024 * 1024 - 15):  # then across the first chunk's end
            path.write_bytes(b"%PDF-1.4\n" + b" " * at + text)
            assert pdf_active.named_in_bytes(str(path)) == found, (text, at)


# The review's web pages and SVG images passed off as text: markup after whitespace, a byte-order
# mark, a comment or an XML declaration, under a neutral name.
PAGE = content.kind_refused("HTML page")
SVG = content.kind_refused("SVG image")
SMUGGLED = {
    b"\n<html><body><script>alert(document.cookie)</script></body></html>": PAGE,
    b"  \t<!DOCTYPE html>\n<title>Results</title><script>fetch('/api')</script>": PAGE,
    b"\xef\xbb\xbf<html><script>1</script></html>": PAGE,
    b"<!-- saved from url=(0014)about:internet -->\n<html><script>1</script>": PAGE,
    b"\r\n<script>alert(1)</script>": PAGE,
    b"\n<iframe src=https://evil.example/></iframe>": PAGE,
    "\ufeff <html><script>1</script>".encode("utf-16"): PAGE,
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>': SVG,
    b' <svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>': SVG,
    b'<?xml version="1.0"?>\n<!-- drawn -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
    b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg/>': SVG,
    b'<?xml version="1.0"?>\n<record xmlns:h="http://www.w3.org/1999/xhtml">'
    b"<h:script>alert(1)</h:script></record>": PAGE,
}


async def test_web_pages_and_svg_passed_off_as_text_are_refused(ward: Ward) -> None:
    for data, message in SMUGGLED.items():
        for name in ("results", "results.xml", "results.bin"):
            assert await _refused(ward, name, data) == message, (name, data)
    # Names a browser opens as pages claim a page whatever text they hold.
    for name in ("notes.html", "notes.htm", "notes.xhtml", "notes.shtml", "notes.mht"):
        assert await _refused(ward, name, b"Blood pressure 120/80\n") in (
            PAGE,
            content.kind_refused("web archive"),
        ), name
    assert await _refused(ward, "drawing.svg", b"just words\n") == SVG
    assert await _refused(ward, "page.html", samples.png()) == content.not_what_named(
        "an HTML page", "a PNG image"
    )
    # Ordinary notes that mention markup further on, or start with a sign, are text.
    notes = {
        "a.txt": b"Patient asked about <script> tags in the portal; see <html> docs.\n",
        "b.txt": b"<3 from the ward team\n",
        "c.txt": b"<<< urgent >>> call the lab\n",
        "d.txt": b"<patient>Doe</patient> is how the export names it\n",
        "e.xml": b'<?xml version="1.0"?>\n<observation><value>5.4</value></observation>\n',
        "cda.xml": b'<?xml version="1.0"?>\n<ClinicalDocument xmlns="urn:hl7-org:v3" '
        b'xmlns:xhtml="http://www.w3.org/1999/xhtml"><text>Stable</text></ClinicalDocument>\n',
    }
    for name, data in notes.items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, (name, await response.get_data())


# The second review's: markup whose head hides what follows it, XML a browser shows as a page,
# and notes refused for starting with markup under names a browser opens as text.
PADDING = b"x" * (content.HEAD_BYTES + 6 * 1024)
XML_PAGES = {
    b'<?xml version="1.0"?><!--' + PADDING + b'--><svg xmlns="http://www.w3.org/2000/svg" '
    b'onload="alert(document.domain)"/>': PAGE,
    b'<?xml version="1.0"?><?note ' + PADDING + b"?><svg onload='alert(1)'/>": PAGE,
    b'<?xml version="1.0"?>\n<page xmlns="http://www.w3.org/1999/xhtml"><p>'
    + PADDING
    + b"</p><script>alert(1)</script></page>": PAGE,
    b'<?xml version="1.0"?><d:drawing xmlns:d="http://www.w3.org/2000/svg"><d:g>'
    + PADDING
    + b"</d:g><d:script>alert(1)</d:script></d:drawing>": SVG,
    b'<?xml version="1.0"?>\n<?xml-stylesheet type="text/xsl" href="show.xsl"?>\n'
    b"<observation><value>5.4</value></observation>\n": PAGE,
}


async def test_xml_a_browser_shows_as_a_page_is_refused(ward: Ward) -> None:
    for data, message in XML_PAGES.items():
        for name in ("chart.xml", "chart.xsl", "chart.xslt", "chart"):
            assert await _refused(ward, name, data) == message, (name, data[:60])
    # The same under a text file's name is text a browser shows as text.
    response = await ward.upload(ward.nurse, "chart.txt", next(iter(XML_PAGES)))
    assert response.status_code == 201, await response.get_data()


async def test_markup_under_a_text_files_name_is_text(ward: Ward) -> None:
    """Names a browser opens as text are served as text (text/plain and the like, nosniff,
    a sandboxing CSP): their markup runs nothing, so a note starting with markup is kept."""
    notes = {
        "notes.md": b"<!-- ward template v2 -->\n# Discharge notes\nPatient stable.\n",
        "letter.txt": b"<b>Urgent</b>: call the patient back about results.\n",
        "export.csv": b"<p>,value\n1,2\n",
        "page.txt": b"\n<html><body><script>alert(1)</script></body></html>",
        "drawing.log": b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        "copy.tsv": b"<html>\tx\n",
        "plain.text": b"<!DOCTYPE html><p>x",
    }
    for name, data in notes.items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, (name, await response.get_data())
    view = await ward.client.get(ward.url("page.txt", "view"), headers=ward.nurse.headers)
    assert view.status_code == 200
    assert view.headers["Content-Type"].startswith("text/plain")
    assert view.headers["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in view.headers["Content-Security-Policy"]
    # Under any other name the same bytes are a page.
    for name in ("page", "page.xml", "page.bin", "page.html"):
        assert await _refused(ward, name, notes["page.txt"]) == PAGE, name


async def test_web_pages_are_accepted_when_allowed(web_ward: Ward) -> None:
    ward = web_ward  # BFF_ALLOWED_TYPES with html
    for name, data in (
        ("page.html", b"\n<html><script>1</script></html>"),
        ("notes.html", b"plain words, shown as a page\n"),
        ("drawing.svg", b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'),
        ("results", b"\n<html></html>"),
    ):
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, (name, await response.get_data())
    # Still a mislabelled file is refused.
    assert await _refused(ward, "photo.html", samples.png()) == content.not_what_named(
        "an HTML page", "a PNG image"
    )


async def test_versions_keep_what_was_found(ward: Ward) -> None:
    await ward.upload(ward.nurse, "results.pdf", samples.pdf_with_javascript())
    replaced = await ward.upload(
        ward.nurse, "results.pdf", samples.pdf(), query={"overwrite": "true"}
    )
    assert replaced.status_code == 201
    assert (await _blob(ward, "results.pdf"))["activeContent"] == ""
    versions = await ward.client.get(
        ward.url("results.pdf", "versions"), headers=ward.nurse.headers
    )
    listed = (await versions.get_json())["versions"]
    assert [v["activeContent"] for v in listed] == ["", "JavaScript"]
    # A new version that is not what its name says is refused; the file stays as it was.
    message = await error_message(
        await ward.upload(ward.nurse, "results.pdf", samples.png(), query={"overwrite": "true"}),
        422,
    )
    assert message == content.not_what_named("a PDF", "a PNG image")
    assert await ward.stored("results.pdf") == samples.pdf()
    # Restoring the earlier version brings back what was found in it.
    restored = await ward.client.post(
        ward.url("results.pdf", "versions", listed[1]["versionId"], "restore"),
        headers=ward.nurse.headers,
    )
    assert restored.status_code == 200, await restored.get_data()
    assert (await _blob(ward, "results.pdf"))["activeContent"] == "JavaScript"
    # So does the trash: deleted and restored, the file is as it was.
    await ward.client.delete(ward.url("results.pdf"), headers=ward.admin.headers)
    back = await ward.client.post(
        ward.url("trash", "results.pdf", "restore"), headers=ward.admin.headers
    )
    assert back.status_code == 200, await back.get_data()
    assert (await _blob(ward, "results.pdf"))["activeContent"] == "JavaScript"


async def test_rtf_is_still_converted_and_profile_images_unaffected(ward: Ward) -> None:
    response = await ward.upload(ward.nurse, "letter.rtf", b"{\\rtf1\\ansi Dear colleague}")
    assert response.status_code == 201, await response.get_data()
    assert (await response.get_json())["rtfConversion"] == {
        "converted": True,
        "txtFileName": "letter.txt",
    }
    # A profile image's upload is a picture the portal re-encodes (not the checked content).
    response = await ward.upload(ward.nurse, "me.png", samples.png((64, 64)), isProfileImage="true")
    assert response.status_code == 201, await response.get_data()
    assert (await response.get_json())["profileImageProcessing"]["standardName"]


def test_allowed_types_are_known_short_names() -> None:
    assert load_settings(allowed_types=" PDF, text,pdf ").allowed_types == "pdf,text"
    with pytest.raises(SettingsError, match=r"BFF_ALLOWED_TYPES: .*unknown type 'exe'"):
        load_settings(allowed_types="pdf,exe")
