"""A batch's plan from its pages' codes (bff/intake/splitting.py): where it splits, what routes
where, which pages are removed, and what a person is told."""

from __future__ import annotations

import secrets

from bff.intake import sheets
from bff.intake.barcodes import PageCodes
from bff.intake.sheets import SEPARATOR, SheetCode, sign
from bff.intake.splitting import BLANK, DAMAGED, ONE_CODE, PlannedDocument, plan

KEY = secrets.token_bytes(32)
SHEET_A = sheets.new_sheet_id()
SHEET_B = sheets.new_sheet_id()
A = sign(11, SHEET_A, KEY)
B = sign(22, SHEET_B, KEY)
ROUTE_A = SheetCode(11, SHEET_A)
ROUTE_B = SheetCode(22, SHEET_B)
FORGED = sign(11, sheets.new_sheet_id(), secrets.token_bytes(32))
ALTERED = A.replace(":11:", ":22:")
FOREIGN = "https://lab.example/r/1"


def _shape(documents: list[PlannedDocument]) -> list[tuple[tuple[int, ...], SheetCode | None]]:
    return [(d.pages, d.route) for d in documents]


def test_a_cover_sheet_first_routes_the_rest_and_is_removed() -> None:
    documents = plan([[A, A], [], []], KEY)
    assert documents == [PlannedDocument((1, 2), ROUTE_A, ())]


def test_separators_split_and_are_removed() -> None:
    documents = plan([[], [SEPARATOR], [], [], [SEPARATOR], []], KEY)
    assert _shape(documents) == [((0,), None), ((2, 3), None), ((5,), None)]


def test_a_cover_sheet_mid_batch_splits_and_routes_what_follows() -> None:
    documents = plan([[], [A, A], [], [B, B], [], [SEPARATOR], []], KEY)
    assert _shape(documents) == [((0,), None), ((2,), ROUTE_A), ((4,), ROUTE_B), ((6,), None)]


def test_a_sheet_that_does_not_verify_splits_but_never_routes() -> None:
    """The pages after a forged or altered sheet never join the routed document before it (they
    would be filed to that patient), nor go where the sheet says; its page stays for a person."""
    for bad in (FORGED, ALTERED, "PRS1:C:11:GARBLED", "PRS2:C:1:X:Y"):
        documents = plan([[A, A], [], [bad], [], []], KEY)
        assert _shape(documents) == [((1,), ROUTE_A), ((2, 3, 4), None)]
        assert documents[0].problems == ()
        (problem,) = documents[1].problems
        assert problem.startswith("Page 3 of the scan is a cover sheet whose code did not verify")


def test_codes_of_two_sheets_on_one_page_route_nothing() -> None:
    for page, said in (
        ([A, B], "carries the codes of more than one sheet"),
        ([A, SEPARATOR], "carries the codes of more than one sheet"),
        ([A, FORGED], "did not verify"),
    ):
        (document,) = plan([page, [], []], KEY)
        assert document.route is None
        assert document.pages == (0, 1, 2)
        (problem,) = document.problems
        assert said in problem
    # The same sheet's code twice (read from a copy of the code on the same sheet) is one sheet.
    assert _shape(plan([[A, A], []], KEY)) == [((1,), ROUTE_A)]


def test_other_barcodes_are_content() -> None:
    documents = plan([[FOREIGN], [], ["PRSX-NOT-OURS", "1234567890128"]], KEY)
    assert documents == [PlannedDocument((0, 1, 2), None, ())]


def test_documents_of_sheets_only_are_dropped() -> None:
    assert plan([[SEPARATOR], [A, A], [SEPARATOR], [SEPARATOR], [B, B]], KEY) == []
    assert plan([], KEY) == []
    assert _shape(plan([[SEPARATOR], [], [A, A]], KEY)) == [((1,), None)]


def test_a_label_routes_and_keeps_its_page() -> None:
    label = sign(11, SHEET_A, KEY, label=True)
    documents = plan([[], [label], []], KEY)
    assert _shape(documents) == [((0,), None), ((1, 2), SheetCode(11, SHEET_A, label=True))]


def test_a_code_that_could_not_be_read_ends_a_routed_document_only() -> None:
    """A damaged sheet-sized QR code: the pages from it on never join the patient before; in a
    document nothing routes (a lab report's torn code), it is content."""
    torn = PageCodes((), damaged=1)
    documents = plan([[A, A], [], torn, [], [SEPARATOR], [], torn, []], KEY)
    assert _shape(documents) == [((1,), ROUTE_A), ((2, 3), None), ((5, 6, 7), None)]
    assert documents[1].problems == (DAMAGED.format(page=3),)
    assert documents[2].problems == ()
    # A sheet read from its other code, the torn one beside it, routes; its page is kept (one
    # code read: it may be a document's page), never lost.
    documents = plan([PageCodes((A,), damaged=1), []], KEY)
    assert documents == [PlannedDocument((0, 1), ROUTE_A, (ONE_CODE.format(page=1),))]


BLANK_PAGE = PageCodes(blank=True)


def test_a_blank_page_after_routed_pages_stops_the_routing() -> None:
    """A one-sided cover sheet fed face down scans blank: the next patient's pages after it must
    not be filed to the patient before. The blank page and what follows, up to the next sheet,
    wait for a person; the next verified sheet routes again."""
    documents = plan([[A, A], [], BLANK_PAGE, [], [], [B, B], []], KEY)
    assert _shape(documents) == [((1,), ROUTE_A), ((2, 3, 4), None), ((6,), ROUTE_B)]
    assert documents[0].problems == ()
    assert documents[1].problems == (BLANK.format(page=3),)
    # Stopped up to a separator too; after it nothing routes anyway.
    documents = plan([[A, A], [], BLANK_PAGE, [], [SEPARATOR], []], KEY)
    assert _shape(documents) == [((1,), ROUTE_A), ((2, 3), None), ((5,), None)]
    # Blank pages with only blank pages after them, up to a sheet or the scan's end (a duplex
    # scan's empty back of the last page): no other document follows them, they stay.
    assert _shape(plan([[A, A], [], BLANK_PAGE, BLANK_PAGE], KEY)) == [((1, 2, 3), ROUTE_A)]
    documents = plan([[A, A], [], BLANK_PAGE, [B, B], []], KEY)
    assert _shape(documents) == [((1, 2), ROUTE_A), ((4,), ROUTE_B)]
    # Where nothing routes, a blank page is content.
    assert plan([[], BLANK_PAGE, [], BLANK_PAGE], KEY) == [PlannedDocument((0, 1, 2, 3))]


def test_the_blank_back_of_a_sheet_is_removed_with_it() -> None:
    """Printed one-sided and scanned duplex, a sheet's back is the blank page right after it:
    removed with the sheet, the run goes on. A second blank page there stops it."""
    assert plan([[A, A], BLANK_PAGE, [], []], KEY) == [PlannedDocument((2, 3), ROUTE_A, ())]
    documents = plan([[A, A], BLANK_PAGE, BLANK_PAGE, []], KEY)
    assert _shape(documents) == [((2, 3), None)]
    assert documents[0].problems == (BLANK.format(page=3),)


def test_a_cover_sheet_code_read_once_keeps_its_page() -> None:
    """A printed sheet shows its code twice; a code read once may be cut out and stuck on a
    document's first page: the page routes and is kept, first, with the problem said."""
    documents = plan([[], [A], [], [B, B], []], KEY)
    assert documents == [
        PlannedDocument((0,)),
        PlannedDocument((1, 2), ROUTE_A, (ONE_CODE.format(page=2),)),
        PlannedDocument((4,), ROUTE_B, ()),
    ]
    # The kept page is content: a blank page after it stops the routing.
    documents = plan([[A], BLANK_PAGE, []], KEY)
    assert _shape(documents) == [((0,), ROUTE_A), ((1, 2), None)]
    assert documents[1].problems == (BLANK.format(page=2),)
