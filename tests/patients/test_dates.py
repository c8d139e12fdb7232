"""The patient finder's date parser (bff/patients/dates.py), pure: the forms people type, the
day/month order setting, and what is not one date."""

from __future__ import annotations

from datetime import date

import pytest

from bff.patients.dates import DAY_MONTH, MONTH_DAY, typed_date

BORN = date(1955, 1, 30)


@pytest.mark.parametrize(
    "text",
    [
        "30/01/1955",
        "30.01.1955",
        "30-01-1955",
        "30/1/1955",
        " 30 / 01 / 1955 ",
        "1955-01-30",
        "1955/01/30",
        "1955.1.30",
        "30 Jan 1955",
        "30 jan. 1955",
        "30 January 1955",
        "30 JANUARY 1955",
        "30th January 1955",
        "30-Jan-1955",
        "30. January 1955",
        "Jan 30 1955",
        "January 30, 1955",
    ],
)
def test_the_forms_people_type(text: str) -> None:
    assert typed_date(text) == BORN


def test_numbers_follow_the_order_setting_words_do_not() -> None:
    assert typed_date("03/02/1980") == date(1980, 2, 3)
    assert typed_date("03/02/1980", DAY_MONTH) == date(1980, 2, 3)
    assert typed_date("03/02/1980", MONTH_DAY) == date(1980, 3, 2)
    assert typed_date("01/30/1955", MONTH_DAY) == BORN
    assert typed_date("01/30/1955", DAY_MONTH) is None  # no 30th month
    for order in (DAY_MONTH, MONTH_DAY):
        assert typed_date("30 Jan 1955", order) == BORN
        assert typed_date("1955-01-30", order) == BORN  # year first is always year-month-day


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1955",
        "30/01",
        "30/01/55",  # a two-digit year could be two centuries
        "31/02/1955",  # no such day
        "30/13/1955",
        "30/01-1955",  # mixed separators
        "30 Foo 1955",
        "30 Janu 1955",
        "Müller",
        "MRN-0042",
        "30 Jan 1955 extra",
        "1" * 60,
    ],
)
def test_what_is_not_one_date(text: str) -> None:
    assert typed_date(text) is None
