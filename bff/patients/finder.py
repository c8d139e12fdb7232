"""What a folder search ("by folder name or patient") looks for, pure: the text as typed, folded
as the patients' search text is (accents and case ignored: rules.folded), a date of birth
typed as people type one (dates.py, in BFF_DATE_ORDER), and the words a name with one typo is
tried by when nothing matches exactly.

The typo fallback (bff/containers/repository.py runs it) is bounded: only when the exact search
found nothing, only for a text of at most MAX_WORDS words with one of at least MIN_TYPO_LETTERS
letters, over at most FUZZY_CANDIDATES folders of the caller's scope that the database finds
holding a half of that word (one typo leaves one half of a word whole: `pieces`), compared here
(`matches`). A folder beyond the first FUZZY_CANDIDATES candidates in natural order is not
tried: a search that broad is better typed exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from bff.patients.dates import DAY_MONTH, DateOrder, typed_date
from bff.patients.rules import folded

MIN_TYPO_LETTERS = 4
MAX_WORDS = 4
FUZZY_CANDIDATES = 500
_FIELD_SEPARATOR = "\x1f"  # rules.search_text's


@dataclass(frozen=True)
class Finder:
    """A folder search's text: as typed, folded, the date it is (if one), its folded words."""

    text: str
    key: str
    born: date | None
    words: tuple[str, ...]

    @classmethod
    def of(cls, q: str, order: DateOrder = DAY_MONTH) -> Finder:
        """The search of q (its day/month order for dates written in numbers)."""
        key = folded(q)
        return cls(q, key, typed_date(q, order), tuple(key.split()))

    def may_have_typo(self) -> bool:
        """Whether the typo fallback applies: a name's words, one long enough, not a date."""
        return (
            self.born is None
            and 0 < len(self.words) <= MAX_WORDS
            and any(typo_word(word) for word in self.words)
        )


def typo_word(word: str) -> bool:
    """Whether a word may carry the typo: at least MIN_TYPO_LETTERS letters, letters only."""
    return len(word) >= MIN_TYPO_LETTERS and word.isalpha()


def pieces(word: str) -> tuple[str, ...]:
    """Substrings one of which a word within one typo of `word` holds whole: its two halves
    (a letter added, left out or changed touches one half only), and the word with the two
    letters around the middle swapped (the one swap that touches both halves)."""
    half = len(word) // 2
    swapped = word[: half - 1] + word[half] + word[half - 1] + word[half + 1 :]
    return word[:half], word[half:], swapped


def one_typo(typed: str, word: str) -> bool:
    """Whether typed is word or one typo from it: a letter added, left out or changed, or two
    neighbouring letters swapped (optimal string alignment distance at most 1)."""
    if typed == word:
        return True
    if abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diffs = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and typed[diffs[0]] == word[diffs[1]]
            and typed[diffs[1]] == word[diffs[0]]
        )
    shorter, longer = sorted((typed, word), key=len)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def matches(finder: Finder, search_text: str) -> bool:
    """Whether a folder's patient (its rules.search_text) matches the words of finder, in any
    order, one of them a word of the name with at most one typo and every other one found as
    typed (in the name, record number or date of birth)."""
    name, _, _ = search_text.partition(_FIELD_SEPARATOR)
    name_words = name.split()
    for index, word in enumerate(finder.words):
        if not typo_word(word):
            continue
        others = finder.words[:index] + finder.words[index + 1 :]
        if any(one_typo(word, candidate) for candidate in name_words) and all(
            other in search_text for other in others
        ):
            return True
    return False
