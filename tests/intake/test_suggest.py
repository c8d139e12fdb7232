"""The intake's patient suggestion (bff/intake/suggest.py), pure: a record number plus the same
folder's name or date of birth make a suggestion with each piece's span; a name alone, a number
alone, a number beside another date, a number inside a longer one, two qualifying folders are
unmatched; the forms of dates and record numbers read; the work bounded."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import date

import pytest

from bff.intake.suggest import (
    MAX_KEYS,
    TEXT_LIMIT,
    Candidate,
    Evidence,
    Suggestion,
    record_keys,
    suggest,
)
from bff.patients.dates import DAY_MONTH, MONTH_DAY

ANN = Candidate("ward-1", "patient-1", 1, "Ann Smith", date(1961, 3, 3), "00123-45")
BOB = Candidate("ward-2", "patient-9", 2, "Robert Jones", date(1970, 12, 25), "A77-1")

REFERRAL = """St Elsewhere Hospital, Department of Cardiology
Date: 14/11/2026

Dear Dr Brown,

Re: patient DOB 03/03/1961, Hospital number 00123-45

Thank you for seeing this 65-year-old with exertional chest pain since 12/10/2026.
"""


def at(text: str, piece: str, kind: str) -> Evidence:
    """The evidence of piece where it first occurs in text."""
    start = text.index(piece)
    return Evidence(kind, start, start + len(piece), piece)  # type: ignore[arg-type]


def test_a_referral_with_a_record_number_and_a_date_of_birth_is_suggested() -> None:
    found = suggest(REFERRAL, [BOB, ANN])
    assert found == Suggestion(
        ANN, (at(REFERRAL, "03/03/1961", "birth_date"), at(REFERRAL, "00123-45", "record"))
    )
    for piece in found.evidence:
        assert REFERRAL[piece.start : piece.end] == piece.text  # spans index the text as given
    born, number = REFERRAL.index("03/03/1961"), REFERRAL.index("00123-45")
    assert found.as_json() == {
        "folderId": 1,
        "container": "ward-1",
        "folder": "patient-1",
        "evidence": [
            {"kind": "birth_date", "start": born, "end": born + 10, "text": "03/03/1961"},
            {"kind": "record", "start": number, "end": number + 8, "text": "00123-45"},
        ],
    }


def test_a_letter_naming_the_patient_only_is_unmatched() -> None:
    letter = "Re: Ann Smith, born 3 March 1961. Seen in clinic today."
    assert suggest(letter, [ANN]) is None  # name and date of birth, but no record number


def test_a_record_number_alone_is_unmatched() -> None:
    assert suggest("Lab report for 00123-45: haemoglobin 13.2 g/dL", [ANN]) is None


def test_a_record_number_beside_another_date_is_unmatched() -> None:
    letter = "MRN 00123-45, DOB 04/03/1961. Letter of 03/04/2026."
    assert suggest(letter, [ANN]) is None
    # Told another birth date, the folder's own date elsewhere does not make them agree.
    assert suggest("MRN 00123-45 DOB 04/03/1961, seen 03/03/1961", [ANN]) is None
    # Nor does its name.
    assert suggest("Ann Smith MRN 00123-45 DOB 04/03/1961", [ANN]) is None


@pytest.mark.parametrize(
    "text",
    [
        "Ann Smith, ref 9001234567, DOB 03/03/1961",  # inside a longer number
        "Ann Smith, ref 900123-45, DOB 03/03/1961",  # at its end
        "Ann Smith, ref 00123-456, DOB 03/03/1961",
        "Ann Smith, ref 00123-45-2, DOB 03/03/1961",  # a piece of a longer token
        "Ann Smith, ref X00123-45, DOB 03/03/1961",  # glued to a letter that is no label
        "Ann Smith, ref 00123-45é, DOB 03/03/1961",  # a letter of any script is no boundary
        "Ann Smith, ref Ö00123-45, DOB 03/03/1961",
    ],
)
def test_a_number_inside_a_longer_one_is_not_found(text: str) -> None:
    assert suggest(text, [ANN]) is None
    assert "00123-45" not in record_keys(text)


def test_two_qualifying_folders_are_unmatched() -> None:
    twin = Candidate("ward-3", "patient-4", 3, "Ann Smith", date(1961, 3, 3), "B-555")
    letter = "Ann Smith, DOB 03/03/1961, numbers 00123-45 and B-555."
    assert suggest(letter, [ANN, twin]) is None
    # Either one alone qualifies.
    assert suggest(letter, [twin]) is not None
    assert suggest(letter, [ANN]) is not None
    # One qualifying and another with its number only: the one.
    other = replace(twin, name="Bea Other", birth_date=date(1990, 1, 1))
    found = suggest(letter, [ANN, other])
    assert found is not None and found.candidate == ANN


def test_a_record_number_and_the_name_in_either_order() -> None:
    for letter, name in [
        ("Patient: SMITH, Ann  MRN: 00123-45", "SMITH, Ann"),
        ("Patient: Ann Smith (MRN 00123-45)", "Ann Smith"),
        ("Name: Mrs Ann Marie Smith\nHospital no. 00123-45", "Ann Marie Smith"),
    ]:
        found = suggest(letter, [ANN])
        assert found is not None, letter
        assert found.evidence == (at(letter, name, "name"), at(letter, "00123-45", "record"))


def test_names_are_compared_without_case_or_accents() -> None:
    jose = Candidate("ward-1", "patient-2", 5, "José Müller", None, "M-42")
    for letter, name in [
        ("JOSE MULLER, M-42", "JOSE MULLER"),
        ("Muller, José; m-42", "Muller, José"),
        ("Jose\u0301 Mu\u0308ller M-42", "Jose\u0301 Mu\u0308ller"),  # accents decomposed
    ]:
        found = suggest(letter, [jose])
        assert found is not None, letter
        assert found.evidence[0] == at(letter, name, "name")
    plain = replace(jose, name="Jose Muller")
    assert suggest("Dr José Müller, M-42", [plain]) is not None


def test_a_name_is_evidence_only_as_whole_words_close_together() -> None:
    assert suggest("Annie Smithson 00123-45", [ANN]) is None  # no whole words
    far = "Ann was seen by the team on the ward today. Dr Smith. MRN 00123-45"
    assert suggest(far, [ANN]) is None  # the words far apart
    assert suggest(f"{far} Zoë", [ANN]) is None  # (text in ASCII is read another way)
    three = replace(ANN, name="Ann Bea Smith")
    for end in ("", " é"):
        assert suggest(f"Smith Bea Ann 00123-45{end}", [three]) is not None
        assert suggest(f"Ann Bea{' ' * 300}Smith 00123-45{end}", [three]) is None
        assert suggest(f"Ann Bea, or else Smith 00123-45{end}", [three]) is not None
        assert suggest(f"Ann Bea or and else Smith 00123-45{end}", [three]) is None
    one_word = replace(ANN, name="Smith")
    assert suggest("Smith 00123-45", [one_word]) is None  # a surname alone is no evidence
    initials = replace(ANN, name="A. B. Smith")
    assert suggest("A. B. Smith 00123-45", [initials]) is None  # nor is one with initials
    # A one-word name's folder is still suggested by its number and date of birth.
    found = suggest("Smith 00123-45 DOB 1961-03-03", [one_word])
    assert found is not None and [e.kind for e in found.evidence] == ["record", "birth_date"]


@pytest.mark.parametrize(
    "written",
    [
        "03/03/1961",
        "3/3/1961",
        "03.03.1961",
        "03-03-1961",
        "1961-03-03",
        "3 March 1961",
        "3rd March 1961",
        "March 3, 1961",
        "03 Mar 1961",
        "03-Mar-1961",
        "MARCH 3 1961",
    ],
)
def test_dates_of_birth_in_common_forms(written: str) -> None:
    letter = f"MRN: 00123-45\nDate of birth: {written}\n"
    found = suggest(letter, [ANN])
    assert found is not None
    assert found.evidence == (at(letter, "00123-45", "record"), at(letter, written, "birth_date"))


def test_a_numeric_date_counts_only_in_the_configured_order() -> None:
    april = replace(ANN, birth_date=date(1961, 4, 3))  # 3 April 1961
    letter = "MRN 00123-45, born 03/04/1961"
    assert suggest(letter, [april], DAY_MONTH) is not None
    assert suggest(letter, [april], MONTH_DAY) is None  # there: 4 March
    assert suggest("MRN 00123-45, born 04/03/1961", [april], MONTH_DAY) is not None
    # A day past 12 is no date in the other order; year first and words are read either way.
    late = replace(ANN, birth_date=date(1961, 4, 23))
    assert suggest("MRN 00123-45, born 23/04/1961", [late], DAY_MONTH) is not None
    assert suggest("MRN 00123-45, born 23/04/1961", [late], MONTH_DAY) is None
    for written in ("1961-04-23", "23 April 1961", "Apr 23, 1961"):
        assert suggest(f"MRN 00123-45 {written}", [late], MONTH_DAY) is not None, written


def test_not_dates() -> None:
    for written in ("03/03/61", "33/03/1961", "1961", "03/03-1961", "103/03/1961"):
        assert suggest(f"MRN 00123-45 DOB {written}", [ANN]) is None, written


@pytest.mark.parametrize(
    ("stored", "written"),
    [
        ("00123-45", "MRN: 00123-45"),
        ("00123-45", "mrn:00123-45"),
        ("A77-1", "a77-1"),  # any case (rules.record_key)
        ("0012345", "MRN: 00123-45"),  # the text's separators left out
        ("0012345", "No. 001.23.45"),
        ("0012345", "MRN0012345"),  # a label glued to it
        ("00123-45", "MRN-00123-45"),
        ("0012345", "No.0012345"),
        ("12345", "#12345"),
    ],
)
def test_record_numbers_in_printed_forms(stored: str, written: str) -> None:
    folder = replace(ANN, record_number=stored)
    letter = f"Patient {written} DOB 03/03/1961"
    found = suggest(letter, [folder])
    assert found is not None, written
    assert found.evidence[0].kind == "record"
    assert found.evidence[0].text in written


def test_groups_of_digits_one_space_apart_are_one_number() -> None:
    letter = "Ann Smith, NHS number: 943 476 5919, seen 12345 times"
    for stored in ("943 476 5919", "9434765919"):
        found = suggest(letter, [replace(ANN, record_number=stored)])
        assert found is not None, stored
        assert found.evidence[1] == at(letter, "943 476 5919", "record")
    # A group is not a number of its own, alone or at the end of a table's row.
    for text in ("Ann Smith 943 476 5919", "Ann Smith 12 5919 7", "Ann Smith 1 2 3 4 5919"):
        assert suggest(text, [replace(ANN, record_number="5919")]) is None, text
    # Nor a longer run one number.
    assert suggest("Ann Smith 1 2 3 4 5", [replace(ANN, record_number="12345")]) is None
    assert suggest("Ann Smith 1 2 3 4 5", [replace(ANN, record_number="1 2 3 4 5")]) is None
    # The stored number's spaces are not guessed.
    assert suggest("Ann Smith 9434765919", [replace(ANN, record_number="943 476 5919")]) is None
    # A date's day or year is not a group of the number beside it.
    for header in ("SMITH Ann 3 March 1961 0012345", "0012345 3 Mar 1961", "Mar 3 1961 0012345"):
        found = suggest(header, [replace(ANN, record_number="0012345")])
        assert found is not None, header
        assert [e.text for e in found.evidence if e.kind == "record"] == ["0012345"]
    # Digits beside a date or a word are their own.
    found = suggest("Ann Smith 5919/2 5919", [replace(ANN, record_number="5919")])
    assert found is not None


def test_a_printed_form_two_folders_may_be_is_evidence_for_neither() -> None:
    dashed = replace(ANN, folder_id=7, record_number="00123-45")
    bare = replace(ANN, folder_id=8, folder="patient-8", record_number="0012345")
    letter = "MRN 00123-45 DOB 03/03/1961"
    assert suggest(letter, [dashed, bare]) is None
    assert suggest(letter, [dashed]) is not None


def test_a_number_two_folders_hold_is_evidence_for_neither() -> None:
    # A duplicate from before migration 0032: the second folder keeps the number, unkeyed.
    legacy = replace(ANN, folder_id=9, folder="patient-9", record_number="00123-45 ")
    letter = "Ann Smith MRN 00123-45 DOB 03/03/1961"
    assert suggest(letter, [ANN, legacy]) is None
    assert suggest(letter, [legacy]) is not None


def test_record_keys_are_bounded_and_labelled_ones_come_first() -> None:
    numbers = ", ".join(f"{n}" for n in range(100_000, 100_000 + 3 * MAX_KEYS))
    text = f"{numbers} Hospital number: 00123-45 and 9123456"
    keys = record_keys(text)
    assert len(keys) == MAX_KEYS
    assert keys[:2] == ["00123-45", "0012345"]  # labelled, with its form without separators
    assert keys[2:4] == ["100000", "100001"]  # then in order of appearance
    assert "12345" not in record_keys("9123456 123456 12345x x12345")
    assert record_keys("no numbers here at all") == []


def test_a_candidate_without_a_record_number_is_never_suggested() -> None:
    unnumbered = replace(ANN, record_number=None)
    assert suggest("Ann Smith 03/03/1961 00123-45", [unnumbered]) is None


def test_several_megabytes_finish_quickly() -> None:
    filler = (
        "Blood pressure 120/80 on 12/10/2026, Hb 13.2, ref 4471-22. Dr Smith saw Ann. " * 70_000
    )
    text = "Re: Ann Smith MRN 00123-45 DOB 03/03/1961\n" + filler  # about 5.5 MB
    started = time.perf_counter()
    found = suggest(text, [ANN])
    keys = record_keys(text)
    assert time.perf_counter() - started < 5  # about 0.2 s here: TEXT_LIMIT characters read
    assert found is not None and found.evidence[0] == at(text, "Ann Smith", "name")
    assert len(keys) <= MAX_KEYS
    # Past TEXT_LIMIT nothing is read.
    assert suggest(" " * TEXT_LIMIT + "Ann Smith MRN 00123-45 DOB 03/03/1961", [ANN]) is None


@pytest.mark.parametrize(
    "text",
    ["a-" * 20_000, "a.." * 13_000 + "1", "1-" * 20_000 + "1é", "1," * 20_000, "." * 40_000],
)
def test_no_text_makes_the_reading_slow(text: str) -> None:
    started = time.perf_counter()
    record_keys(text)
    suggest(text + " Ann Smith 00123-45", [ANN])
    assert time.perf_counter() - started < 1  # about 10 ms; "a-a-a..." took 9 s before
