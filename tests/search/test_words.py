"""Words with their boxes (bff/search/words.py): characters grouped into words, boxes as fractions
of the page as shown (pdfium's own pages: rotated, cropped), tesseract's TSV, the stored JSON's
bounds, and matching as search matches (accents, case, phrases, prefixes)."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF

from bff.search.query import parse
from bff.search.words import (
    MAX_PAGE_WORDS,
    MAX_WORD_TOKENS,
    SCALE,
    TimeUp,
    Word,
    decoded,
    encoded,
    group,
    page_matches,
    pdf_words,
    tsv_words,
)


def test_characters_are_grouped_into_words_at_whitespace() -> None:
    def box(x: float) -> tuple[float, float, float, float]:
        return (x, 10.0, x + 5, 20.0)

    chars = [
        ("H", box(0)),
        ("i", box(5)),
        (" ", None),
        ("\r", None),
        ("\n", None),
        ("a", (10.0, 8.0, 15.0, 22.0)),
        ("\u00ad", (0.0, 0.0, 0.0, 0.0)),  # a character placed nowhere: no part of the box
        ("b", box(15)),
        ("\t", None),
        ("\ud83d", box(30)),  # a surrogate pair from pdfium's UTF-16: one character
        ("\ude00", box(35)),
        (" ", None),
        ("\ud800", box(40)),  # a lone surrogate: replaced
    ]
    assert group(chars) == [
        ("Hi", (0.0, 10.0, 10.0, 20.0)),
        ("a\u00adb", (10.0, 8.0, 20.0, 22.0)),
        ("\U0001f600", (30.0, 10.0, 40.0, 20.0)),
        ("\ufffd", (40.0, 10.0, 45.0, 20.0)),
    ]
    assert group([("x", None), (" ", None)]) == []  # no box: nowhere to show it


def _pdf(text: str) -> bytes:
    pdf = FPDF()  # A4: 595.28 x 841.89 points
    pdf.set_font("Helvetica", size=14)
    pdf.add_page()
    pdf.set_xy(10, 10)  # mm from the top-left corner
    pdf.cell(text=text)
    return bytes(pdf.output())


def _words_of(data: bytes, rotation: int = 0, crop: bool = False) -> list[Word]:
    document = pdfium.PdfDocument(data)
    try:
        page = document[0]
        page.set_rotation(rotation)
        if crop:  # the top-left quarter only
            width, height = page.get_size()
            page.set_cropbox(0, height / 2, width / 2, height)
        textpage = page.get_textpage()
        try:
            return pdf_words(page, textpage)
        finally:
            textpage.close()
            page.close()
    finally:
        document.close()


def _fractions(word: Word) -> tuple[float, ...]:
    return tuple(value / SCALE for value in word[1:])


def test_pdf_boxes_are_fractions_of_the_page_as_shown_origin_top_left() -> None:
    data = _pdf("Hello wörld")
    upright = _words_of(data)
    assert [w[0] for w in upright] == ["Hello", "wörld"]
    (x0, y0, x1, y1), (x2, _, x3, _) = _fractions(upright[0]), _fractions(upright[1])
    # 10 mm from the left of 210 mm, from the top of 297 mm (PDF's origin is bottom-left).
    assert 0.04 < x0 < 0.06 and 0.02 < y0 < 0.04 and y0 < y1 < 0.06
    assert x0 < x1 < x2 < x3 < 0.3  # in reading order, left to right

    # Turned a quarter clockwise: the top-left corner is now the top-right one, and the
    # words run down the page.
    turned = [_fractions(w) for w in _words_of(data, 90)]
    assert turned[0] == pytest.approx((1 - y1, x0, 1 - y0, x1), abs=2 / SCALE)
    assert turned[1][1] > turned[0][3]
    upside_down = _fractions(_words_of(data, 180)[0])
    assert upside_down == pytest.approx((1 - x1, 1 - y1, 1 - x0, 1 - y0), abs=2 / SCALE)
    left = _fractions(_words_of(data, 270)[0])
    assert left == pytest.approx((y0, 1 - x1, y1, 1 - x0), abs=2 / SCALE)

    # Cropped to the top-left quarter: the same words, twice as large a part of the page.
    cropped = _fractions(_words_of(data, crop=True)[0])
    assert cropped == pytest.approx((2 * x0, 2 * y0, 2 * x1, 2 * y1), abs=2 / SCALE)


def test_words_outside_the_crop_box_are_left_out_and_boxes_clamped() -> None:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=14)
    pdf.add_page()
    pdf.set_xy(10, 10)
    pdf.cell(text="shown")
    pdf.set_xy(10, 250)
    pdf.cell(text="cropped")
    assert [w[0] for w in _words_of(bytes(pdf.output()), crop=True)] == ["shown"]
    for word in _words_of(bytes(pdf.output())):
        assert all(0 <= value <= SCALE for value in word[1:])


TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "1\t1\t0\t0\t0\t0\t0\t0\t1000\t500\t-1\t\n"
    "4\t1\t1\t1\t1\t0\t100\t50\t400\t40\t-1\t\n"
    "5\t1\t1\t1\t1\t1\t100\t50\t200\t40\t95.5\tReferral\n"
    "5\t1\t1\t1\t1\t2\t320\t52\t180\t38\t91.0\tletter\n"
    "5\t1\t1\t1\t1\t3\t600\t52\t10\t38\t12.0\t \n"
    "5\t1\t1\t1\t2\t1\t900\t450\t300\t100\t80.0\tedge\n"
)


def test_tesseract_word_boxes_are_fractions_of_the_image() -> None:
    assert tsv_words(TSV, 1000, 500) == [
        ("Referral", 1000, 1000, 3000, 1800),
        ("letter", 3200, 1040, 5000, 1800),
        ("edge", 9000, 9000, SCALE, SCALE),  # past the image's edge: clamped
    ]
    assert tsv_words(TSV, 0, 0) == []
    assert tsv_words("garbage\nwithout\ttabs\n", 10, 10) == []


def test_a_page_s_words_are_bounded() -> None:
    many = "".join(
        f"5\t1\t1\t1\t1\t{i}\t0\t0\t1\t1\t90\tw{i}\n" for i in range(MAX_PAGE_WORDS + 50)
    )
    assert len(tsv_words("header\n" + many, 10, 10)) == MAX_PAGE_WORDS
    words: list[Word] = [("word", 1, 2, 3, 4)] * 1000
    stored = encoded(words, room=2000)
    assert len(stored) <= 2000 and decoded(stored) == words[: len(decoded(stored))]
    assert decoded(encoded([('é"x', 0, 1, 2, 3)])) == [('é"x', 0, 1, 2, 3)]


def _words(text: str) -> list[Word]:
    return [(word, 0, 0, 1, 1) for word in text.split()]


@pytest.mark.parametrize(
    ("q", "spans"),
    [
        ("amoxicillin", [(3, 4), (9, 10)]),
        ("AMOXICILLIN", [(3, 4), (9, 10)]),
        ("creme", [(5, 6)]),  # accents as search folds them, both ways
        ("crème", [(5, 6)]),
        ("Müller", [(7, 8)]),
        ("muller", [(7, 8)]),
        ('"creme brulee"', [(5, 7)]),  # a phrase: consecutive words
        ('"brulee creme"', []),
        ("amox*", [(3, 4), (9, 10)]),  # a prefix
        ("e.coli", [(8, 9)]),  # a word with punctuation: its tokens next to each other
        ("letter amoxicillin", [(1, 2), (3, 4), (9, 10)]),  # every word, each highlighted
        ("letter penicillin", []),  # every word must be on the page
        ("amoxicillin -muller", []),  # an excluded word on the page: no match there
        ("amoxicillin -warfarin", [(3, 4), (9, 10)]),
        ('amoxicillin "amoxicillin given"', [(3, 4), (9, 11)]),  # overlaps: the longer kept
    ],
)
def test_matching_is_search_s(q: str, spans: list[tuple[int, int]]) -> None:
    words = _words(
        "Discharge letter mentions amoxicillin, and Crème brûlée; Muller e.coli Amoxicillin given"
    )
    assert page_matches(parse(q), words) == spans


def test_matching_stops_at_its_deadline_and_reads_a_word_s_first_tokens_only() -> None:
    flood = _words(" ".join([".".join(["a"] * 100)] * 3000))
    with pytest.raises(TimeUp):
        page_matches(parse('"a a" zzz'), flood, deadline=0.0)  # long past
    tail = [str(n) for n in range(MAX_WORD_TOKENS + 5)]
    words = _words(".".join(tail))
    assert page_matches(parse(tail[MAX_WORD_TOKENS - 1]), words) == [(0, 1)]
    assert page_matches(parse(tail[MAX_WORD_TOKENS]), words) == []
