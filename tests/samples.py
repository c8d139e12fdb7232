"""Small real files of each kind, for tests that upload content: every upload's bytes are
checked against what its name claims (bff/files/content.py), so a test's `.pdf` is a PDF pdfium
opens, its `.png` a PNG, its `.docx` a Word document."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

from PIL import Image


def pdf(text: str = "Hello", *, catalog: str = "", objects: Sequence[str] = ()) -> bytes:
    """A one-page PDF showing text (letters, digits and spaces), written by hand: catalog adds
    entries to its catalog, objects more objects (numbered from 6)."""
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    bodies = [
        f"<< /Type /Catalog /Pages 2 0 R {catalog}>>".encode(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        *(o.encode() for o in objects),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(bodies, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(bodies) + 1,
        xref,
    )
    return bytes(out)


def pdf_with_javascript() -> bytes:
    """A PDF that runs JavaScript when opened (an OpenAction, and the names tree's entry)."""
    return pdf(
        "Results",
        catalog="/OpenAction 6 0 R /Names << /JavaScript << /Names [(run) 6 0 R] >> >> ",
        objects=["<< /S /JavaScript /JS (app.alert\\('opened'\\);) >>"],
    )


def pdf_with_launch() -> bytes:
    """A PDF whose opening launches a program."""
    return pdf("Results", catalog="/OpenAction 6 0 R ", objects=["<< /S /Launch /F (calc.exe) >>"])


def pdf_with_attachment() -> bytes:
    """A PDF with an embedded file (fpdf2's embed_file: the names tree's EmbeddedFiles)."""
    from fpdf import FPDF

    document = FPDF()
    document.add_page()
    document.set_font("helvetica")
    document.cell(text="Results")
    document.embed_file(basename="payload.txt", bytes=b"hidden")
    return bytes(document.output())


def pdf_with_escaped_javascript() -> bytes:
    """The review's first bypass: an /OpenAction running JavaScript whose names are written with
    #xx escapes (/J#61vaScript is /JavaScript, /#4AS is /JS), so the bytes never name them."""
    return pdf(
        "Results",
        catalog="/OpenAction 6 0 R ",
        objects=["<< /S /J#61vaScript /#4AS (app.alert\\('opened'\\);) >>"],
    )


def _compressed(document: Any) -> bytes:
    """A pikepdf document saved with its objects in compressed object streams (and its streams
    compressed), so that no dictionary's names are in the file's bytes."""
    import pikepdf

    out = io.BytesIO()
    document.save(
        out,
        object_stream_mode=pikepdf.ObjectStreamMode.generate,
        compress_streams=True,
        stream_decode_level=pikepdf.StreamDecodeLevel.none,
    )
    data = out.getvalue()
    for name in (b"JavaScript", b"/JS", b"Launch", b"Embedded", b"/EF", b"Attachment", b"script"):
        assert name not in data, name
    return data


def _opened(data: bytes) -> Any:
    import pikepdf

    return pikepdf.open(io.BytesIO(data))


def pdf_with_javascript_in_object_stream() -> bytes:
    """The review's second bypass: a JavaScript /OpenAction inside a compressed object stream."""
    import pikepdf

    document = _opened(pdf("Results"))
    action = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert(1);"))
    document.Root.OpenAction = document.make_indirect(action)
    return _compressed(document)


def pdf_with_page_launch() -> bytes:
    """The review's third bypass: a page's additional action (/AA /O, run when the page opens)
    launching a program, in a compressed object stream (no link annotation, no names tree)."""
    import pikepdf

    document = _opened(pdf("Results"))
    launch = pikepdf.Dictionary(S=pikepdf.Name.Launch, F=pikepdf.String("calc.exe"))
    document.pages[0].obj.AA = pikepdf.Dictionary(O=launch)
    return _compressed(document)


def pdf_with_attachment_in_object_stream(pages: int = 2001) -> bytes:
    """The review's fourth bypass: an embedded file behind a file attachment annotation on the
    last of many pages, its annotation and file specification in a compressed object stream and
    its stream without the optional /Type /EmbeddedFile; no names tree."""
    import pikepdf

    document = _opened(pdf("Results"))
    for _ in range(pages - 1):
        document.add_blank_page()
    embedded = document.make_stream(b"MZ hidden payload")
    spec = pikepdf.Dictionary(
        Type=pikepdf.Name.Filespec,
        F=pikepdf.String("payload.exe"),
        EF=pikepdf.Dictionary(F=embedded),
    )
    annotation = pikepdf.Dictionary(
        Type=pikepdf.Name.Annot,
        Subtype=pikepdf.Name.FileAttachment,
        Rect=pikepdf.Array([72, 72, 96, 96]),
        FS=document.make_indirect(spec),
    )
    document.pages[-1].obj.Annots = pikepdf.Array([document.make_indirect(annotation)])
    return _compressed(document)


def pdf_with_xfa_script() -> bytes:
    """A PDF whose XFA form (compressed) carries a script a reader with XFA runs."""
    import pikepdf

    document = _opened(pdf("Results"))
    template = document.make_stream(
        b'<template xmlns="http://www.xfa.org/schema/xfa-template/3.3/"><subform>'
        b'<event activity="initialize"><script contentType="application/x-javascript">'
        b"app.alert(1);</script></event></subform></template>"
    )
    document.Root.AcroForm = pikepdf.Dictionary(
        Fields=pikepdf.Array(), XFA=pikepdf.Array([pikepdf.String("template"), template])
    )
    return _compressed(document)


def pdf_with_escaped_javascript_behind_password() -> bytes:
    """A PDF opened with a password (neither pdfium nor qpdf reads it without one) whose
    /OpenAction runs JavaScript, the action's names written with #xx escapes: what the search of
    the bytes finds when qpdf cannot read the objects."""
    import pikepdf

    document = _opened(pdf("Results"))
    action = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert(1);"))
    document.Root.OpenAction = document.make_indirect(action)
    out = io.BytesIO()
    document.save(
        out,
        encryption=pikepdf.Encryption(user="secret", owner="owner", R=6),
        object_stream_mode=pikepdf.ObjectStreamMode.disable,
    )
    data = out.getvalue().replace(b"/JavaScript", b"/J#61vaScript").replace(b"/JS ", b"/#4AS ")
    assert b"/JavaScript" not in data and b"/JS" not in data
    return data


def _javascript_opening(document: Any) -> None:
    import pikepdf

    action = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert(1);"))
    document.Root.OpenAction = document.make_indirect(action)


def pdf_with_javascript_behind_password() -> bytes:
    """The review's password bypass: a user password (neither pdfium nor qpdf reads it without
    one) and its JavaScript /OpenAction in an encrypted object stream: nothing to see in the
    bytes."""
    import pikepdf

    document = _opened(pdf("Results"))
    _javascript_opening(document)
    out = io.BytesIO()
    document.save(
        out,
        encryption=pikepdf.Encryption(user="1234", owner="owner", R=6),
        object_stream_mode=pikepdf.ObjectStreamMode.generate,
    )
    return out.getvalue()


def pdf_cut_before_startxref() -> bytes:
    """The review's bypass of qpdf: a JavaScript /OpenAction in a compressed object stream, the
    file cut before its `startxref` (pdfium repairs it and opens it; qpdf's recovery finds no
    trailer, which lives in the cut file's xref stream)."""
    document = _opened(pdf("Results"))
    _javascript_opening(document)
    data = _compressed(document)
    return data[: data.rfind(b"startxref")]


def pdf_with_indirect_launch() -> bytes:
    """An /OpenAction launching a program, its /S /Launch given by reference (/S 6 0 R)."""
    import pikepdf

    document = _opened(pdf("Results"))
    action = pikepdf.Dictionary(
        S=document.make_indirect(pikepdf.Name.Launch), F=pikepdf.String("cmd.exe")
    )
    document.Root.OpenAction = document.make_indirect(action)
    return _compressed(document)


def pdf_with_3d_javascript() -> bytes:
    """A 3D annotation whose artwork runs a script when it loads (/OnInstantiate)."""
    import pikepdf

    document = _opened(pdf("Results"))
    artwork = pikepdf.Stream(document, b"U3D")
    artwork.Type = pikepdf.Name("/3D")
    artwork.Subtype = pikepdf.Name("/U3D")
    artwork.OnInstantiate = document.make_indirect(pikepdf.Stream(document, b"host.x = 1;"))
    annotation = pikepdf.Dictionary(
        Type=pikepdf.Name.Annot, Subtype=pikepdf.Name("/3D"), Rect=pikepdf.Array([0, 0, 9, 9])
    )
    annotation["/3DD"] = document.make_indirect(artwork)
    document.pages[0].obj.Annots = pikepdf.Array([document.make_indirect(annotation)])
    return _compressed(document)


_XFA_SCRIPT = (
    b'<template><subform><event activity="initialize">'
    b'<script contentType="application/x-javascript">app.alert(1)</script>'
    b"</event></subform></template></xdp:xdp>"
)


def _with_xfa(stream_of: Any) -> bytes:
    import pikepdf

    document = _opened(pdf("Results"))
    stream = stream_of(document)
    document.Root.AcroForm = pikepdf.Dictionary(
        Fields=pikepdf.Array(), XFA=document.make_indirect(stream)
    )
    return _compressed(document)


def pdf_with_xfa_script_after_predictor() -> bytes:
    """The review's XFA bypass: the form's XML Flate-compressed with a PNG predictor (rows of
    "up" differences), so the inflated bytes alone hold no `<script`."""
    import zlib

    import pikepdf

    xml = b'<?xml version="1.0"?><xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/">' + _XFA_SCRIPT
    columns = 16
    rows = [xml[i : i + columns].ljust(columns, b" ") for i in range(0, len(xml), columns)]
    above, encoded = bytes(columns), b""
    for row in rows:
        encoded += b"\x02" + bytes((row[i] - above[i]) & 0xFF for i in range(columns))
        above = row

    def stream_of(document: Any) -> Any:
        stream = pikepdf.Stream(document, zlib.compress(encoded))
        stream.Filter = pikepdf.Name.FlateDecode
        stream.DecodeParms = pikepdf.Dictionary(Predictor=12, Columns=columns)
        return stream

    assert b"script" not in zlib.decompress(zlib.compress(encoded))
    return _with_xfa(stream_of)


def pdf_with_xfa_script_after_padding(padding: int) -> bytes:
    """The review's other XFA bypass: the script after `padding` bytes of an XML comment."""
    import zlib

    import pikepdf

    xml = (
        b'<?xml version="1.0"?><xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><!--'
        + b" " * padding
        + b"-->"
        + _XFA_SCRIPT
    )

    def stream_of(document: Any) -> Any:
        stream = pikepdf.Stream(document, zlib.compress(xml, 9))
        stream.Filter = pikepdf.Name.FlateDecode
        return stream

    return _with_xfa(stream_of)


def pdf_with_javascript_beside_a_memory_bomb(elements: int = 20_000_000) -> bytes:
    """The review's memory bypass, written by hand: one compressed object stream holding the
    catalog, its page and a JavaScript /OpenAction beside an array of `elements` numbers, which
    qpdf cannot parse within the worker's memory (std::bad_alloc: the whole stream's objects read
    as null) while pdfium, reading the action alone, runs it."""
    import zlib

    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        b"<< /S /JavaScript /JS (app.alert(1)) /Pad [" + b"0 " * elements + b"] >>",
    ]
    index, data = b"", b""
    for number, body in enumerate(bodies, 1):
        index += b"%d %d " % (number, len(data))
        data += body + b"\n"
    packed = zlib.compress(index + data, 9)
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    stream_at = len(out)
    out += b"5 0 obj\n<< /Type /ObjStm /N 4 /First %d /Filter /FlateDecode /Length %d >>\n" % (
        len(index),
        len(packed),
    )
    out += b"stream\n" + packed + b"\nendstream\nendobj\n"
    xref_at = len(out)
    rows = b"\x00\x00\x00\x00\x00\xff\xff"
    rows += b"".join(b"\x02\x00\x00\x00\x05" + i.to_bytes(2, "big") for i in range(4))
    rows += b"\x01" + stream_at.to_bytes(4, "big") + b"\x00\x00"
    rows += b"\x01" + xref_at.to_bytes(4, "big") + b"\x00\x00"
    out += b"6 0 obj\n<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length %d >>\n" % len(rows)
    out += b"stream\n" + rows + b"\nendstream\nendobj\n"
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def pdf_with_objects(count: int, *, javascript: bool = False) -> bytes:
    """A one-page PDF holding count more (empty) objects, in compressed object streams (and a
    JavaScript /OpenAction with javascript)."""
    import pikepdf

    document = pikepdf.new()
    document.add_blank_page()
    if javascript:
        _javascript_opening(document)
    document.Root.Many = pikepdf.Array(
        [document.make_indirect(pikepdf.Dictionary()) for _ in range(count)]
    )
    out = io.BytesIO()
    document.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return out.getvalue()


def damaged_pdf() -> bytes:
    """Bytes that start as a PDF and are not one pdfium opens."""
    return b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\n% cut off here\n"


def _image(fmt: str, size: tuple[int, int] = (4, 4)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, fmt)
    return out.getvalue()


def png(size: tuple[int, int] = (4, 4)) -> bytes:
    return _image("PNG", size)


def jpeg(size: tuple[int, int] = (4, 4)) -> bytes:
    return _image("JPEG", size)


def docx(text: str = "Discharge letter") -> bytes:
    """A Word document (python-docx)."""
    import docx as python_docx

    document = python_docx.Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def odt() -> bytes:
    """An OpenDocument text: its stored `mimetype` first, as ODF requires."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        archive.writestr("content.xml", "<office:document-content/>", zipfile.ZIP_DEFLATED)
        archive.writestr("META-INF/manifest.xml", "<manifest:manifest/>", zipfile.ZIP_DEFLATED)
    return out.getvalue()


def dicom() -> bytes:
    """A DICOM file: the 128-byte preamble, `DICM`, a file meta group element."""
    element = b"\x02\x00\x10\x00UI\x14\x001.2.840.10008.1.2.1\x00"
    return b"\x00" * 128 + b"DICM" + element


def windows_exe() -> bytes:
    """The start of a Windows PE executable (DOS header, stub, PE signature)."""
    header = bytearray(b"MZ" + b"\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00")
    header += b"\x00" * (0x3C - len(header)) + (0x80).to_bytes(4, "little")
    header += b"\x0e\x1f\xba\x0e\x00\xb4\x09\xcd\x21This program cannot be run in DOS mode.\r\n$"
    header += b"\x00" * (0x80 - len(header)) + b"PE\x00\x00\x4c\x01\x03\x00" + b"\x00" * 200
    return bytes(header)


def elf() -> bytes:
    """The start of a Linux ELF executable."""
    return (
        b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00\x01\x00\x00\x00" + bytes(100)
    )
