"""Dates as people type them into a patient finder, pure: 30/01/1955, 30.01.1955, 30-1-1955,
1955-01-30, 30 Jan 1955, 30 January 1955, Jan 30, 1955. Numbers alone are read in the
deployment's order (BFF_DATE_ORDER: day-month, or month-day: 01/30/1955); a month written in
words is unambiguous in either. Years have four digits (a two-digit year could be two
centuries); anything else, or a day that does not exist, is no date (None)."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

DateOrder = Literal["day-month", "month-day"]
DAY_MONTH: DateOrder = "day-month"
MONTH_DAY: DateOrder = "month-day"

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        1,
    )
    for name in names
}
_YEAR_FIRST = re.compile(r"(\d{4})\s*([-/.])\s*(\d{1,2})\s*\2\s*(\d{1,2})")
_NUMBERS = re.compile(r"(\d{1,2})\s*([-/.])\s*(\d{1,2})\s*\2\s*(\d{4})")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?\.?"
_MONTH = r"([a-z]{3,9})\.?"
_DAY_WORD = re.compile(rf"{_DAY}[\s\-/,]*{_MONTH}[\s\-/,]*(\d{{4}})")
_WORD_DAY = re.compile(rf"{_MONTH}[\s\-/,]*{_DAY}[\s\-/,]+(\d{{4}})")


def _day(year: str, month: int | str, day: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def typed_date(text: str, order: DateOrder = DAY_MONTH) -> date | None:
    """The date text is, as a person types one (the whole text, any case, spaces around
    separators allowed), or None when it is not exactly one real date."""
    text = text.strip().casefold()
    if len(text) > 40:
        return None
    if found := _YEAR_FIRST.fullmatch(text):
        year, _, month, day = found.groups()
        return _day(year, month, day)
    if found := _NUMBERS.fullmatch(text):
        first, _, second, year = found.groups()
        day, month = (first, second) if order == DAY_MONTH else (second, first)
        return _day(year, month, day)
    if found := _DAY_WORD.fullmatch(text):
        day, name, year = found.groups()
        return _day(year, _MONTHS[name], day) if name in _MONTHS else None
    if found := _WORD_DAY.fullmatch(text):
        name, day, year = found.groups()
        return _day(year, _MONTHS[name], day) if name in _MONTHS else None
    return None
