"""The intake's patient suggestion, pure: which folder a document's text (OCR or a PDF's text
layer) is about, as a suggestion with its evidence, never a guess.

A folder is suggested only when its record number and at least one other of its identifiers
(its patient's name, or date of birth) are found in the text, and no other candidate qualifies
so; anything else is unmatched (None): a name alone, a number alone, a number beside a date of
birth that is another date, two folders that both qualify. A person confirms every suggestion.

- Record numbers: the text's tokens (ASCII letters and digits joined by single - . / _ inside;
  a token is the unit, never a piece of it: 12345 is not found in 9123456 nor in 12345-6),
  holding a digit, read by rules.record_key. Tolerated forms: a token without its separators
  (00123-45 also reads 0012345), without a glued label (MRN00123, No.00123 also read 00123),
  and 2 to MAX_GROUPS groups of digits one space apart as one number (943 476 5919 also reads
  9434765919; its groups are never numbers of their own, nor is a longer run of groups); a
  token whose readings are two folders' numbers, or one number two folders hold (a duplicate
  from before migration 0032), is evidence for neither. Not tolerated: OCR's letter/digit
  confusions (O/0, l/1), a stored number with separators or spaces the text lacks (the key is
  looked up as written).
- Dates of birth: dates in the text as bff/patients/dates.py reads a typed one (numbers in the
  deployment's BFF_DATE_ORDER only, year first, a month in words either way). A date labelled as
  a birth (DOB, born, date of birth) that is not the folder's disqualifies it: the identifiers
  disagree.
- Names: the folded words of at least two letters of the folder's patient name (rules.folded:
  case and accents ignored), at least two of them, all found as whole words with at most
  NAME_SLACK other words and _CLOSE characters between (any order: "Smith, Ann" too; a middle
  name or a title between). A one-word name, or one of initials, is never name evidence: a
  surname alone is shared by too many people; such a folder needs its date of birth.
- Bounded work, linear in the text read: the first TEXT_LIMIT characters (about 70 pages of
  dense text; a longer document is suggested from them alone) are examined; at most MAX_KEYS
  record keys (labelled tokens first, then by first appearance) are looked up; at most
  MAX_EVIDENCE pieces of each kind are returned. On this project's 2-core machine, shared: a
  5 kB letter takes 2 ms; a text of 1 MB or more 40-60 ms for record_keys and 70-120 ms for
  suggest, 0.25 s each for the worst text found (250,000 characters of "1,1,1,...").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal, NamedTuple

from bff.patients.dates import DAY_MONTH, DateOrder, typed_date
from bff.patients.rules import RECORD_NUMBER_MAX, folded, record_key

TEXT_LIMIT = 250_000
MAX_KEYS = 200
MAX_EVIDENCE = 10
MAX_GROUPS = 4  # groups of digits one space apart read as one number (an NHS number's 3)
NAME_SLACK = 2  # other words allowed among a name's words (a middle name, a title)
_CLOSE = 200  # characters between two words beyond which they are never one name's

EvidenceKind = Literal["record", "name", "birth_date"]

# A token: ASCII letters and digits, single separators inside, not touching a letter or digit
# of any script (a record number's word boundaries). Linear time on any text: it starts only
# where no token goes on (the lookbehinds), looks ahead a bounded way for a digit (a record
# number has one; _readings checks the token holds it) and never backtracks into a token (the
# atomic group): a text of "a-a-a-..." took minutes with a lookahead unbounded.
_TOKEN = re.compile(
    r"(?<![^\W_])(?<![A-Za-z0-9][-./_])(?=[A-Za-z0-9])(?=[A-Za-z0-9./_-]{0,127}?\d)"
    r"(?>[A-Za-z0-9]+(?:[-./_][A-Za-z0-9]+)*)(?![^\W_])"
)
_HAS_DIGIT = re.compile(r"\d")
_SEPARATORS = re.compile(r"[-./_]")
_GLUED_LABEL = re.compile(r"(?:mrn|urn|nhs|hn|pid|id|no|nr|ref)[-./_]?(?=\d)(.+)", re.I)
# A label before a token (MRN: 00123, Hospital No 00123), found in one pass: where it ends.
_LABEL = re.compile(
    r"\b(?:mrn|urn|nhs|record|hosp(?:ital)?|patient|pid|id|no|nr|num(?:ber)?|ref(?:erence)?)"
    r"[\s:#.]{0,4}(?=[A-Za-z0-9])",
    re.I,
)
_BIRTH_BEFORE = re.compile(
    r"\b(?:d\.?\s?o\.?\s?b|born(?:\s+on)?|birth(?:\s?date)?|date\s+of\s+birth)\W{0,4}$", re.I
)
_LOOK_BEHIND = 24  # characters before a date searched for its birth label
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?\.?"
# Where a date may be; dates.typed_date then reads it (in BFF_DATE_ORDER) or refuses it.
_DATES = (
    re.compile(r"(?<![\w./-])\d{1,2} ?([-/.]) ?\d{1,2} ?\1 ?\d{4}(?![\w/-]|\.\d)"),
    re.compile(r"(?<![\w./-])\d{4}([-/.])\d{1,2}\1\d{1,2}(?![\w/-]|\.\d)"),
    re.compile(rf"(?<!\w){_ORDINAL}[\s,/-]{{0,3}}{_MONTH}[\s,/-]{{0,3}}\d{{4}}(?!\w)", re.I),
    re.compile(rf"(?<!\w){_MONTH}[\s,/-]{{0,3}}{_ORDINAL}[\s,/-]{{1,3}}\d{{4}}(?!\w)", re.I),
)
_DIGITS = re.compile(r"\d+")
# A word of a name: letters and digits of any script, with combining accents.
_WORD = re.compile(r"[^\W_](?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff])*")


@dataclass(frozen=True)
class Candidate:
    """A folder whose patient a document may be about (candidates.py reads them)."""

    container: str
    folder: str
    folder_id: int
    name: str | None
    birth_date: date | None
    record_number: str | None


@dataclass(frozen=True)
class Evidence:
    """One identifier found in the text: its kind, its span [start, end) and what it says."""

    kind: EvidenceKind
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Suggestion:
    """The one folder the text qualifies, with every piece of evidence in text order."""

    candidate: Candidate
    evidence: tuple[Evidence, ...]

    def as_json(self) -> dict[str, object]:
        """The suggestion as an intake item keeps it: the folder and the evidence (the
        patient's identity is read from the folder when shown: it may change meanwhile)."""
        c = self.candidate
        return {
            "folderId": c.folder_id,
            "container": c.container,
            "folder": c.folder,
            "evidence": [
                {"kind": e.kind, "start": e.start, "end": e.end, "text": e.text}
                for e in self.evidence
            ],
        }


class _Token(NamedTuple):
    start: int
    end: int
    readings: tuple[str, ...]
    labelled: bool


def examined(text: str) -> str:
    """The part of text the suggestion reads (its spans index text itself)."""
    return text[:TEXT_LIMIT]


def _readings(token: str) -> tuple[tuple[str, ...], bool]:
    """The record keys a token may be (as written, without separators, without a glued label;
    a token has no spaces: its key is its lower case, rules.record_key), and whether a label is
    glued to it (MRN00123)."""
    key = token.lower()
    if key[0].isdigit() and key.isalnum():
        return ((key,) if len(key) <= RECORD_NUMBER_MAX else ()), False
    if not _HAS_DIGIT.search(key):
        return (), False  # its digit was past a double separator (abc..1)
    keys = [key]
    glued = _GLUED_LABEL.fullmatch(key) if key[0].isalpha() else None
    if glued:
        keys.append(glued.group(1))
    for form in tuple(keys):
        bare = _SEPARATORS.sub("", form)
        if bare != form:
            keys.append(bare)
    return tuple(dict.fromkeys(k for k in keys if len(k) <= RECORD_NUMBER_MAX)), bool(glued)


def _spaced(body: str, chain: list[tuple[int, int]], labelled_at: set[int]) -> Iterator[_Token]:
    """The number groups of digits one space apart make (943 476 5919: as written and joined;
    one group: itself), when there are at most MAX_GROUPS of them (more: a table, no number)."""
    if 1 <= len(chain) <= MAX_GROUPS:
        start, end = chain[0][0], chain[-1][1]
        written = body[start:end]
        keys = dict.fromkeys((written, written.replace(" ", "")))
        readings = tuple(key for key in keys if len(key) <= RECORD_NUMBER_MAX)
        yield _Token(start, end, readings, start in labelled_at)


def _worded_date_digits(body: str) -> set[int]:
    """Where the digits of each date with its month in words begin (its day and year)."""
    return {
        date_found.start() + digits.start()
        for pattern in _DATES[2:]
        for date_found in pattern.finditer(body)
        for digits in _DIGITS.finditer(date_found.group())
    }


def _tokens(text: str, labels: bool = False) -> Iterator[_Token]:
    """The text's tokens that may be record numbers (a digit, not too long; digits only one
    space from other digits are one spaced number, never one of their own: _spaced), in text
    order; labels: whether each is told labelled (after MRN:, Hospital No, ..., or with a label
    glued to it)."""
    body = examined(text)
    labelled_at = {found.end() for found in _LABEL.finditer(body)} if labels else set[int]()
    known: dict[str, tuple[tuple[str, ...], bool]] = {}  # a text repeats its numbers
    chain: list[tuple[int, int]] = []  # groups of digits one space apart
    dated = _worded_date_digits(body)
    for found in _TOKEN.finditer(body):
        token = found.group()
        start, end = found.span()
        if start in dated:  # 3 March 1961 0012345: the 1961 is no group of 0012345's
            yield from _spaced(body, chain, labelled_at)
            chain = []
            continue
        if token.isdigit():
            if chain and body[chain[-1][1] : start] != " ":
                yield from _spaced(body, chain, labelled_at)
                chain = []
            chain.append((start, end))
            continue
        yield from _spaced(body, chain, labelled_at)
        chain = []
        if len(token) > 2 * RECORD_NUMBER_MAX:
            continue
        if (read := known.get(token)) is None:
            read = known[token] = _readings(token)
        yield _Token(start, end, read[0], labels and (start in labelled_at or read[1]))
    yield from _spaced(body, chain, labelled_at)


def record_keys(text: str) -> list[str]:
    """The record keys to look up for text: at most MAX_KEYS, those of tokens after a label
    (MRN:, Hospital No, ...) first, then in order of first appearance."""
    labelled: dict[str, None] = {}
    others: dict[str, None] = {}
    for token in _tokens(text, labels=True):
        for key in token.readings:
            if token.labelled:
                labelled.setdefault(key, None)
            elif key not in labelled:
                others.setdefault(key, None)
            if len(labelled) >= MAX_KEYS:
                return list(labelled)
    keys = list(labelled)
    keys += [key for key in others if key not in labelled][: MAX_KEYS - len(keys)]
    return keys


def _record_spans(text: str, by_key: dict[str, list[Candidate]]) -> dict[int, list[Evidence]]:
    """Each candidate's record evidence (by folder id); a token read as two folders' numbers
    (two keys, or one number two folders hold: a duplicate from before migration 0032) is
    evidence for neither."""
    spans: dict[int, list[Evidence]] = {}
    for token in _tokens(text):
        holders = {c.folder_id for key in token.readings for c in by_key.get(key, ())}
        if len(holders) == 1:
            found = Evidence("record", token.start, token.end, text[token.start : token.end])
            spans.setdefault(holders.pop(), []).append(found)
    return spans


def _dates(text: str, order: DateOrder) -> list[tuple[date, Evidence, bool]]:
    """Every date in text (as dates.py reads a typed one), its span, and whether it is
    labelled a date of birth."""
    found: dict[int, tuple[date, Evidence, bool]] = {}
    body = examined(text)
    for pattern in _DATES:
        for match in pattern.finditer(body):
            start, end = match.span()
            day = typed_date(match.group(), order)
            if day is None or start in found:
                continue
            birth = bool(_BIRTH_BEFORE.search(text, max(0, start - _LOOK_BEHIND), start))
            found[start] = (day, Evidence("birth_date", start, end, match.group()), birth)
    return [found[start] for start in sorted(found)]


def name_words(name: str | None) -> tuple[str, ...]:
    """The words a name is found by (folded, two letters or more), or () when it cannot be
    evidence (fewer than two such words)."""
    words = tuple(dict.fromkeys(w for w in _WORD.findall(folded(name or "")) if len(w) >= 2))
    return words if len(words) >= 2 else ()


def _fold_word(word: str) -> str:
    return word.lower() if word.isascii() else folded(word)


def _name_hits(body: str, needed: set[str]) -> list[tuple[int, str, int, int]]:
    """The words of body that are needed, folded: (word index, word, start, end); two more
    than _CLOSE characters apart are counted _CLOSE words apart (never one name's)."""
    hits: list[tuple[int, str, int, int]] = []
    index = after = 0
    if not body.isascii():
        for found in _WORD.finditer(body):
            start, end = found.span()
            if (word := _fold_word(found.group())) in needed:
                index += _CLOSE if start - after > _CLOSE else 0
                hits.append((index, word, start, end))
                after = end
            index += 1
        return hits
    # ASCII text (most OCR): the words are found by one regular expression, the words between
    # two counted only where they are close.
    alternatives = "|".join(re.escape(word) for word in sorted(needed, key=len, reverse=True))
    pattern = re.compile(rf"(?<![^\W_])(?:{alternatives})(?![^\W_])", re.I)
    for found in pattern.finditer(body):
        start, end = found.span()
        between = start - after
        index += len(_WORD.findall(body, after, start)) if between <= _CLOSE else _CLOSE
        hits.append((index, found.group().lower(), start, end))
        index, after = index + 1, end
    return hits


def _name_spans(text: str, wanted: dict[int, tuple[str, ...]]) -> dict[int, list[Evidence]]:
    """Each wanted name's evidence: windows of at most len(words) + NAME_SLACK consecutive
    words of the text holding all its words."""
    needed = {word for words in wanted.values() for word in words}
    seen = _name_hits(examined(text), needed) if needed else []
    spans: dict[int, list[Evidence]] = {}
    for folder_id, words in wanted.items():
        windows = _windows([s for s in seen if s[1] in words], len(words))
        spans[folder_id] = [Evidence("name", a, b, text[a:b]) for a, b in windows]
    return spans


def _windows(seen: Sequence[tuple[int, str, int, int]], size: int) -> list[tuple[int, int]]:
    """The spans of the shortest runs of seen holding size distinct words within
    size + NAME_SLACK words of the text, not overlapping."""
    windows: list[tuple[int, int]] = []
    counts: dict[str, int] = {}
    first = 0
    for last, (index, word, _, end) in enumerate(seen):
        counts[word] = counts.get(word, 0) + 1
        while seen[first][0] < index - (size + NAME_SLACK - 1) or counts[seen[first][1]] > 1:
            counts[seen[first][1]] -= 1
            if not counts[seen[first][1]]:
                del counts[seen[first][1]]
            first += 1
        if len(counts) == size:
            windows.append((seen[first][2], end))
            counts.clear()
            first = last + 1
            if len(windows) >= MAX_EVIDENCE:
                break
    return windows


def suggest(
    text: str, candidates: Iterable[Candidate], order: DateOrder = DAY_MONTH
) -> Suggestion | None:
    """The one folder among candidates whose record number and name or date of birth the text
    holds (order: how a date in numbers is read, BFF_DATE_ORDER), with its evidence; None when
    none or several qualify."""
    by_key: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if key := record_key(candidate.record_number):
            by_key.setdefault(key, []).append(candidate)
    records = _record_spans(text, by_key) if by_key else {}
    if not records:
        return None
    numbered = {c.folder_id: c for cs in by_key.values() for c in cs if c.folder_id in records}
    names = _name_spans(
        text, {i: words for i, c in numbered.items() if (words := name_words(c.name))}
    )
    dates = _dates(text, order) if any(c.birth_date for c in numbered.values()) else []
    stated = {day for day, _, birth in dates if birth}
    qualified: list[Suggestion] = []
    for folder_id, candidate in numbered.items():
        if candidate.birth_date is not None and stated and candidate.birth_date not in stated:
            continue  # the text says the patient was born on another day: they disagree
        births = [e for day, e, _ in dates if day == candidate.birth_date]
        named = names.get(folder_id, [])
        if not births and not named:
            continue
        pieces = records[folder_id][:MAX_EVIDENCE] + named + births[:MAX_EVIDENCE]
        qualified.append(Suggestion(candidate, tuple(sorted(pieces, key=_order))))
    return qualified[0] if len(qualified) == 1 else None


def _order(piece: Evidence) -> tuple[int, int]:
    return piece.start, piece.end
