"""A scanned batch's plan: which pages make which documents, and which folder a cover sheet
routes each to, from each page's barcode texts (barcodes.read_codes). A pure function.

The rules, page by page:
- a separator sheet (sheets.SEPARATOR) ends the document before it and is removed;
- a valid cover sheet (its code verifies under the key) ends the document before it, routes
  the pages after it (up to the next sheet) to its folder, and is removed when it shows its code
  twice (a printed sheet has two codes a side); a valid label (a sheet's code stuck on a
  document's own page) does the same but its page is kept, first. A cover sheet's code read
  once only is kept too, first, with the problem said: it may be a code cut out and stuck on a
  document's page (or laid over it on a flatbed), and a page must never be lost; a sheet with
  one code hidden (a staple, a pen mark) is then kept in its document, the safe failure;
- a blank page (barcodes.PageCodes.blank) in a routed document ends it: a one-sided cover sheet
  fed face down scans blank, and the next patient's pages after it must not be filed to this
  one. It and the pages after it (up to the next sheet or separator) wait for a person, with
  the problem said. Except: the one page right after a cover sheet, if blank, is the sheet's
  own back (printed one-sided, scanned duplex) and is removed with it; and blank pages with
  only blank pages after them up to the next sheet, separator or the scan's end stay in the
  routed document (a duplex scan's empty back of its last page: no other document follows
  them). In a document no sheet routes, a blank page is content;
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
ONE_CODE = (
    "Page {page} of the scan carries a cover sheet's code only once (a printed sheet shows it "
    "twice): it may be a page of the document with the code stuck on, so it was kept as the "
    "document's first page. Delete that page if it is only the sheet."
)
BLANK = (
    "Page {page} of the scan is blank, after pages a cover sheet routed (a cover sheet fed face "
    "down?): it and the pages after it were not routed; they wait for a person."
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


_Kind = Literal["content", "separator"] | SheetCode | _BadSheet


def plan(pages_codes: Sequence[PageCodes | Sequence[str]], key: bytes) -> list[PlannedDocument]:
    """The documents of a batch whose page i carries the barcodes pages_codes[i] (as read, or
    only their texts)."""
    pages = [_codes(page) for page in pages_codes]
    kinds = [_kind(codes.texts, key) for codes in pages]
    documents: list[PlannedDocument] = []
    current = _Open()
    sheet_at = -2  # the last cover sheet's page
    for index, (codes, kind) in enumerate(zip(pages, kinds, strict=True)):
        if kind == "content" and current.route is not None:
            if codes.damaged:
                kind = _BadSheet(DAMAGED)
            elif codes.blank and index == sheet_at + 1 and not current.pages:
                continue  # the sheet's own blank back (printed one-sided): removed with it
            elif codes.blank and not _blank_to_the_end(pages, kinds, index):
                kind = _BadSheet(BLANK)
        if kind == "content":
            current.pages.append(index)
            continue
        _close(current, documents)
        if isinstance(kind, SheetCode):
            once = not kind.label and _copies(codes, key) < 2
            problems = [ONE_CODE.format(page=index + 1)] if once else []
            current = _Open(kind, [index] if kind.label or once else [], problems)
            sheet_at = index
        elif isinstance(kind, _BadSheet):
            current = _Open(pages=[index], problems=[kind.message.format(page=index + 1)])
        else:
            current = _Open()
    _close(current, documents)
    return documents


def _codes(page: PageCodes | Sequence[str]) -> PageCodes:
    """A page's codes; a plain sequence of texts is each symbol's text, as read."""
    if isinstance(page, PageCodes):
        return page
    texts = tuple(dict.fromkeys(page))
    return PageCodes(texts, copies=tuple(list(page).count(text) for text in texts))


def _copies(codes: PageCodes, key: bytes) -> int:
    """How many symbols on the page carried a verified code."""
    return sum(codes.copies_of(text) for text in codes.texts if verify(text, key) is not None)


def _blank_to_the_end(pages: list[PageCodes], kinds: list[_Kind], index: int) -> bool:
    """Whether only blank pages follow page index up to the next sheet or the scan's end."""
    for codes, kind in zip(pages[index + 1 :], kinds[index + 1 :], strict=True):
        if kind != "content" or codes.damaged:
            return True
        if not codes.blank:
            return False
    return True


def _kind(codes: Sequence[str], key: bytes) -> _Kind:
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
