"""A scanned batch's plan: which pages make which documents, and which folder a cover sheet
routes each to, from each page's barcode texts (barcodes.read_codes). A pure function.

The rules, page by page:
- a separator sheet (sheets.SEPARATOR) ends the document before it and is removed;
- a valid cover sheet (its code verifies under the key) ends the document before it, routes
  the pages after it (up to the next sheet) to its folder, and is removed; a valid label (a
  sheet's code stuck on a document's own page) does the same but its page is kept, first;
- a sheet of ours that does not verify (forged, altered, photocopied from another installation,
  or two different sheets' codes on one page) routes nothing, yet still ends the document
  before it: the pages after it were meant to be a new document, and must never join a routed
  one before it (that would file them to the previous patient). Its page is kept, as the first
  page of an unrouted document, so the person filing it sees the sheet, with the problem said;
- a page with a QR code of a sheet's size that could not be decoded (barcodes.PageCodes.damaged)
  ends a routed document before it: it may be the next patient's damaged cover sheet, and its
  pages must not be filed to the patient before; the pages from it on wait for a person, with
  the problem said. In a document no sheet routes, it is content;
- any other barcode (a lab label, a letter's own QR code) is content, and ignored;
- documents left with no pages (two sheets in a row, a sheet at the end) are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bff.intake.barcodes import PageCodes
from bff.intake.sheets import FAMILY, SEPARATOR, SheetCode, verify

NOT_VERIFIED = (
    "Page {page} of the scan is a cover sheet whose code did not verify (altered, copied from "
    "another installation or not made here): nothing after it was routed."
)
DAMAGED = (
    "Page {page} of the scan carries a code that could not be read (a damaged cover sheet?): "
    "it and the pages after it were not routed."
)
CONFLICTING = (
    "Page {page} of the scan carries the codes of more than one sheet: nothing after it was routed."
)


@dataclass(frozen=True)
class PlannedDocument:
    """One document of a batch: its pages (0-based indices into the scan, in order), the cover
    sheet routing it (None: a person files it), and what a person should know about it."""

    pages: tuple[int, ...]
    route: SheetCode | None = None
    problems: tuple[str, ...] = ()


@dataclass
class _Open:
    route: SheetCode | None = None
    pages: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _BadSheet:
    message: str


def plan(pages_codes: Sequence[PageCodes | Sequence[str]], key: bytes) -> list[PlannedDocument]:
    """The documents of a batch whose page i carries the barcodes pages_codes[i] (as read, or
    only their texts)."""
    documents: list[PlannedDocument] = []
    current = _Open()
    for index, page in enumerate(pages_codes):
        codes = page if isinstance(page, PageCodes) else PageCodes(tuple(page))
        kind = _kind(codes.texts, key)
        if kind == "content" and codes.damaged and current.route is not None:
            kind = _BadSheet(DAMAGED)
        if kind == "content":
            current.pages.append(index)
            continue
        _close(current, documents)
        if isinstance(kind, SheetCode):
            current = _Open(route=kind, pages=[index] if kind.label else [])
        elif isinstance(kind, _BadSheet):
            current = _Open(pages=[index], problems=[kind.message.format(page=index + 1)])
        else:
            current = _Open()
    _close(current, documents)
    return documents


def _kind(
    codes: Sequence[str], key: bytes
) -> Literal["content", "separator"] | SheetCode | _BadSheet:
    """What a page is: content, a separator, a verified cover sheet, or a sheet of ours that
    must not route."""
    ours = {text for text in codes if FAMILY.match(text)}
    if not ours:
        return "content"
    if ours == {SEPARATOR}:
        return "separator"
    if SEPARATOR in ours:
        return _BadSheet(CONFLICTING)
    verified = {verify(text, key) for text in ours}
    if None in verified:
        return _BadSheet(NOT_VERIFIED)
    codes_named = [code for code in verified if code is not None]
    if len(codes_named) != 1:
        return _BadSheet(CONFLICTING)
    return codes_named[0]


def _close(current: _Open, documents: list[PlannedDocument]) -> None:
    if current.pages:
        documents.append(
            PlannedDocument(tuple(current.pages), current.route, tuple(current.problems))
        )
