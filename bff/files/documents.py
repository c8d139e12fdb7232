"""Documents the in-app viewer shows as the server rendered them, in a worker process
(bff/workers.py: time- and memory-limited) and never in the server's: a Word .docx as sanitised
HTML (`docx_html`), an RTF as its plain text (`rtf_text`).

A .docx is a ZIP: before anything is parsed its directory is checked (`check_docx`): at most
MAX_PARTS parts, none over MAX_PART_BYTES unpacked or packed more than MAX_RATIO times (beyond
MAX_RATIO_FROM bytes), at most MAX_TOTAL_BYTES unpacked in all, so a DOCX bomb is refused in
milliseconds with a reason a person can read. Python's zipfile never unpacks a part beyond the
size its directory says (a lying part fails its CRC), so the directory's sizes are the bounds.

mammoth turns the document into plain HTML (no embedded style map: a document's own mapping
could name any element; no external files: linked images and files are never fetched); its
images are kept only as data: URIs of PNG, JPEG, GIF or WebP, each at most MAX_IMAGE_BYTES and
MAX_IMAGES_BYTES in all, else dropped. nh3 (the Ammonia sanitiser) then keeps only the elements
and attributes of a document's text: no script, style, form, frame or object, no event handler,
no link but to an anchor of the document itself (a link's text stays), no image but those data:
URIs. The page is served with a CSP that allows nothing else (bff/files/routes.py).
"""

from __future__ import annotations

import base64
import zipfile
from pathlib import Path
from typing import Any

import mammoth
import nh3

from bff.files.previews import PreviewRefused
from bff.files.rtf import InvalidRtf, convert_rtf

MB = 1024 * 1024
MAX_PARTS = 2000
MAX_PART_BYTES = 32 * MB  # a part's unpacked size (mammoth holds its XML whole, as a tree)
MAX_TOTAL_BYTES = 128 * MB
MAX_RATIO = 100  # a real document's XML packs 5-20 times; a bomb's zeros 1,000 times
MAX_RATIO_FROM = 1 * MB  # small parts may pack as they like
MAX_IMAGE_BYTES = 4 * MB
MAX_IMAGES_BYTES = 16 * MB
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
DOCUMENT_PART = "word/document.xml"

DOCX_DAMAGED = "This Word document could not be read. It may be damaged or not a .docx file."
DOCX_TOO_LARGE_INSIDE = (
    f"This Word document unpacks to more than the viewer allows ({MAX_TOTAL_BYTES // MB} MB, "
    f"or {MAX_PART_BYTES // MB} MB for one part), so it is not shown here."
)
DOCX_BOMB = (
    "This Word document holds a part packed far tighter than any real document's (a ZIP "
    "bomb), so it is not shown here."
)
DOCX_TOO_MANY_PARTS = (
    f"This Word document has more than {MAX_PARTS} parts, so it is not shown here."
)

# What mammoth writes for a document's text, and what of it is kept.
TAGS = frozenset(
    {
        *("p", "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr", "blockquote", "pre", "code"),
        *("strong", "b", "em", "i", "u", "s", "sup", "sub", "small", "span", "div"),
        *("ul", "ol", "li", "dl", "dt", "dd"),
        *("table", "thead", "tbody", "tfoot", "tr", "td", "th"),
        *("a", "img"),
    }
)
ATTRIBUTES = {
    "*": {"id"},  # the targets of footnote and bookmark links
    "a": {"href"},
    "img": {"src", "alt"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
}
# Dropped with their content (anything else not in TAGS loses its tags and keeps its text).
DROPPED_WITH_CONTENT = frozenset({"script", "style", "template", "noscript", "title"})

PAGE_STYLE = (
    "body{margin:0;padding:1rem;background:#fff;color:#1a1a1a;"
    "font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;overflow-wrap:anywhere}"
    "main{max-width:48rem;margin:0 auto}"
    "img{max-width:100%;height:auto}"
    "table{border-collapse:collapse;margin:1rem 0}"
    "td,th{border:1px solid #999;padding:.25rem .5rem;vertical-align:top}"
)


def check_docx(archive: zipfile.ZipFile) -> None:
    """PreviewRefused unless archive's directory says a document the viewer may unpack."""
    parts = archive.infolist()
    if len(parts) > MAX_PARTS:
        raise PreviewRefused(DOCX_TOO_MANY_PARTS)
    total = 0
    for part in parts:
        if part.file_size > MAX_PART_BYTES:
            raise PreviewRefused(DOCX_TOO_LARGE_INSIDE)
        if part.file_size > MAX_RATIO_FROM and part.file_size > MAX_RATIO * part.compress_size:
            raise PreviewRefused(DOCX_BOMB)
        total += part.file_size
        if total > MAX_TOTAL_BYTES:
            raise PreviewRefused(DOCX_TOO_LARGE_INSIDE)
    if DOCUMENT_PART not in archive.namelist():
        raise PreviewRefused(DOCX_DAMAGED)


class _Images:
    """mammoth's convert_image: an image as a bounded data: URI of a raster type, or nothing."""

    def __init__(self) -> None:
        self.kept = 0

    def __call__(self, image: Any) -> list[Any]:
        content_type = str(image.content_type or "").lower()
        if content_type not in IMAGE_TYPES:
            return []
        try:
            with image.open() as stream:
                data = stream.read(MAX_IMAGE_BYTES + 1)
        except Exception:  # noqa: BLE001 - a linked (external) or unreadable image is left out
            return []
        if len(data) > MAX_IMAGE_BYTES or self.kept + len(data) > MAX_IMAGES_BYTES:
            return []
        self.kept += len(data)
        attributes = {"src": f"data:{content_type};base64,{base64.b64encode(data).decode()}"}
        if image.alt_text:
            attributes["alt"] = str(image.alt_text)
        return [mammoth.html.element("img", attributes)]


def _attribute(element: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: a link only to the document itself, an image only as data."""
    if element == "a" and attribute == "href":
        return value if value.startswith("#") else None
    if element == "img" and attribute == "src":
        kind = value[5:].partition(";")[0].lower() if value.startswith("data:") else ""
        return value if kind in IMAGE_TYPES and value.startswith(f"data:{kind};base64,") else None
    return value


def sanitised(html: str) -> str:
    """html with only the elements and attributes of a document's text (nh3)."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_attribute,
        url_schemes={"data"},
        strip_comments=True,
        link_rel=None,
    )


def page(body: str) -> bytes:
    """A whole HTML page around a sanitised body (UTF-8)."""
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{PAGE_STYLE}</style></head><body><main>{body}</main></body></html>"
    ).encode()


def docx_html(path: str) -> bytes:
    """A .docx (its path) as a sanitised HTML page; PreviewRefused when it must not or cannot
    be shown (a bomb, a damaged file)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise PreviewRefused(DOCX_DAMAGED) from None
    with archive:
        check_docx(archive)
    try:
        with Path(path).open("rb") as source:
            result = mammoth.convert_to_html(
                source,
                convert_image=_Images(),
                include_embedded_style_map=False,
                external_file_access=False,
            )
    except PreviewRefused:
        raise
    except Exception:  # noqa: BLE001 - whatever a malformed document makes mammoth raise
        raise PreviewRefused(DOCX_DAMAGED) from None
    return page(sanitised(str(result.value)))


def rtf_text(path: str) -> bytes:
    """An RTF document's (its path) plain text, UTF-8; PreviewRefused when it is not one."""
    try:
        return convert_rtf(Path(path).read_bytes()).encode()
    except InvalidRtf as exc:
        raise PreviewRefused(str(exc)) from None
