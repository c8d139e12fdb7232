"""The rules of a patient's demographics, pure: a name as a person writes it, a date of birth
that is a real day not in the future, a bounded printable record number; and the folded text a
folder search matches them by.

A patient's name is a person's name, not a file name: naming.given_name spells it in NFC and
refuses invisible characters, separator look-alikes and mixed scripts (one name that could pass
for another is the wrong-patient error the demographics are there to prevent); this module adds
what only a person's name needs (no control characters, spaces collapsed, a length limit).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from bff.errors import ApiError
from bff.naming import given_name

NAME_MAX = 200
RECORD_NUMBER_MAX = 64
EARLIEST_BIRTH = date(1870, 1, 1)
# The day begins first at UTC+14: a birth recorded there today is still tomorrow in UTC.
_EARLIEST_ZONE = timedelta(hours=14)
_SPACES = re.compile(r"\s+")
_RECORD_NUMBER = re.compile(rf"[!-~](?:[ -~]{{0,{RECORD_NUMBER_MAX - 2}}}[!-~])?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# Separates the fields of the search text: a search never contains it, so no match spans two.
_FIELD_SEPARATOR = "\x1f"

NAME_RULE = f"A patient name is 1 to {NAME_MAX} characters with no control characters."
RECORD_NUMBER_RULE = (
    f"A record number is 1 to {RECORD_NUMBER_MAX} printable characters (letters, digits, "
    "punctuation and spaces between them)."
)
DATE_RULE = "A date of birth is a real date written as YYYY-MM-DD."
FUTURE_BIRTH = "A date of birth cannot be in the future."
EARLY_BIRTH = f"A date of birth cannot be before {EARLIEST_BIRTH.isoformat()}."


@dataclass(frozen=True)
class Demographics:
    """A patient's name, date of birth and record number, each optional."""

    name: str | None = None
    birth_date: date | None = None
    record_number: str | None = None

    def is_empty(self) -> bool:
        """Whether nothing is known of the patient."""
        return self.name is None and self.birth_date is None and self.record_number is None


FIELD_WORDS = {"name": "name", "birth_date": "date of birth", "record_number": "record number"}


def _name_error(name: str) -> str | None:
    if not name or len(name) > NAME_MAX:
        return NAME_RULE
    if any(unicodedata.category(char) == "Cc" for char in name):
        return NAME_RULE
    return None


def patient_name(given: str | None) -> str | None:
    """A patient's name as given (NFC, spaces collapsed), None when blank; ApiError 400."""
    if given is None:
        return None
    if any(unicodedata.category(char) == "Cc" and char not in " \t" for char in given):
        raise ApiError(400, NAME_RULE)  # a line break or control character, before collapsing
    collapsed = _SPACES.sub(" ", given).strip()
    if not collapsed:
        return None
    return given_name(collapsed, "patient name", _name_error)


def record_number(given: str | None) -> str | None:
    """A record number as given (ends trimmed), None when blank; ApiError 400."""
    if given is None or not given.strip():
        return None
    text = given.strip()
    if not _RECORD_NUMBER.fullmatch(text):
        raise ApiError(400, RECORD_NUMBER_RULE)
    return text


def record_key(number: str | None) -> str | None:
    """A record number as compared for uniqueness (two folders never share one): trimmed and
    in lower case (record numbers are ASCII: rules.record_number), None when there is none."""
    if number is None or not number.strip():
        return None
    return number.strip().lower()


def latest_birth_date(now: datetime | None = None) -> date:
    """The latest date of birth that is not in the future anywhere on Earth."""
    return ((now or datetime.now(UTC)) + _EARLIEST_ZONE).date()


def birth_date(given: str | date | None, now: datetime | None = None) -> date | None:
    """A date of birth from YYYY-MM-DD (None when blank): a real day, not in the future, not
    before EARLIEST_BIRTH; ApiError 400."""
    if given is None:
        return None
    if isinstance(given, str):
        text = given.strip()
        if not text:
            return None
        if not _ISO_DATE.fullmatch(text):
            raise ApiError(400, DATE_RULE)
        try:
            given = date.fromisoformat(text)
        except ValueError:
            raise ApiError(400, DATE_RULE) from None
    if given > latest_birth_date(now):
        raise ApiError(400, FUTURE_BIRTH)
    if given < EARLIEST_BIRTH:
        raise ApiError(400, EARLY_BIRTH)
    return given


def demographics(name: str | None, born: str | date | None, number: str | None) -> Demographics:
    """The three fields checked together (the first problem is the 400)."""
    return Demographics(patient_name(name), birth_date(born), record_number(number))


def shown_date(day: date) -> str:
    """A date as the web app shows it (lib/format.ts formatDateOnly): 03 Feb 1980."""
    return f"{day.day:02d} {_MONTHS[day.month - 1]} {day.year}"


def folded(text: str) -> str:
    """text as a search compares it: compatibility-decomposed, without accents, case-folded,
    spaces collapsed, no control characters ('José  MÜLLER' -> 'jose muller')."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = (
        char
        for char in decomposed
        if not unicodedata.combining(char) and unicodedata.category(char) != "Cc"
    )
    return _SPACES.sub(" ", "".join(kept).casefold()).strip()


def search_text(patient: Demographics) -> str:
    """What a folder search matches the patient by: the folded name and record number, the date
    of birth as ISO and as the web app shows it ('' when nothing is known)."""
    parts = [folded(patient.name or ""), folded(patient.record_number or "")]
    if patient.birth_date is not None:
        parts += [patient.birth_date.isoformat(), folded(shown_date(patient.birth_date))]
    return _FIELD_SEPARATOR.join(parts) if not patient.is_empty() else ""


def changed_fields(before: Demographics, after: Demographics) -> list[str]:
    """The fields that differ, as words (name, date of birth, record number)."""
    return [
        word for key, word in FIELD_WORDS.items() if getattr(before, key) != getattr(after, key)
    ]
