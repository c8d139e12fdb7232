"""Natural ordering of names, the one spelling and rule of usernames, and the one check of
every name a person gives (container, folder, file): its NFC spelling, free of invisible
characters, look-alike path separators and mixed scripts (pure functions; files/names.py adds
what only a file name needs).

Why: a name is read by people, so two names that look alike must be one name or one of them
refused. NFC makes every canonically equal spelling ('café' composed or decomposed) one string;
format and default-ignorable characters (zero-width space, joiners, bidi controls, variation
selectors) are invisible; a character NFKC folds to '/' or '\\', or that Unicode lists as
confusable with one (the full-width solidus, the division slash), makes a name read as a path;
and a name mixing scripts beyond what Unicode TR39's "highly restrictive" level allows
('hello' spelt with a Cyrillic 'e', U+0435) can pass for another.

Names already stored keep working: storage accepts every name it holds (storage/base.py checks
only that a name cannot escape the root), and these rules apply where a person gives a new one.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable

from confusable_homoglyphs import categories

from bff.errors import ApiError

_SUFFIX = re.compile(r"^(.*?)(\d+)$")
_MAX_SORT_NUMBER = 2**62
CONTAINER_NAME = re.compile(r"(?=.{3,63}\Z)[a-z0-9]+(?:-[a-z0-9]+)*")  # used with fullmatch
FOLDER_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")  # fullmatch: "$" would accept a final newline
USERNAME = re.compile(r"[a-z0-9._-]{3,50}")  # fullmatch, on a username's one spelling
USERNAME_RULE = "Usernames are 3 to 50 lower-case letters, digits, '.', '_' or '-'."


def sort_key(name: str) -> tuple[str, int]:
    """(lower-case text prefix, numeric suffix or -1): 'patient-2' sorts before 'patient-10'."""
    match = _SUFFIX.match(name)
    if not match:
        return (name.lower(), -1)
    return (match.group(1).lower(), min(int(match.group(2)), _MAX_SORT_NUMBER))


def natural_sorted(names: list[str]) -> list[str]:
    """Names sorted by text prefix, then numeric suffix, then the name itself."""
    return sorted(names, key=lambda n: (*sort_key(n), n))


def container_name_error(name: str) -> str | None:
    """Why a container name is invalid, or None when it is valid."""
    if CONTAINER_NAME.fullmatch(name):
        return None
    return (
        "Container names are 3 to 63 characters of lower-case letters, digits and single "
        "hyphens, starting and ending with a letter or digit."
    )


def folder_name_error(name: str) -> str | None:
    """Why a folder name is invalid, or None when it is valid."""
    if FOLDER_NAME.fullmatch(name) and name not in (".", ".."):
        return None
    return "Folder names are 1 to 100 letters, digits, '-', '_' or '.', and not '.' or '..'."


def username_spelling(text: str) -> str:
    """The one spelling of a username: NFKC (full-width letters and the Kelvin sign are their
    plain letters), case-folded, without the spaces around it. Sign-in looks usernames up
    and counts them in this spelling; stored usernames (lower-case ASCII) are their own."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


def username_error(spelling: str) -> str | None:
    """Why a username in its one spelling (`username_spelling`) cannot be one, or None: only
    lower-case ASCII letters, digits, '.', '_' and '-' (so no look-alike letters of another
    script, no invisible characters, no markup)."""
    return None if USERNAME.fullmatch(spelling) else USERNAME_RULE


# Default_Ignorable_Code_Point characters that are not General_Category=Cf in Python 3.11's
# Unicode 14 tables (every such Cf is refused too), from Unicode 15.1's DerivedCoreProperties.txt
# and UnicodeData.txt; tests/test_naming.py checks the two together against the `regex`
# package's own (newer) Unicode data.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors (180E is Cf)
    (0x2065, 0x2065),
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0xFFF0, 0xFFF8),
    (0x13430, 0x1343F),  # Egyptian format controls: Cf, 13439-1343F only since Unicode 15
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement (and the rest reserved)
)
# TR39 "highly restrictive": one script, or one of these sets (Common and Inherited characters,
# such as digits, punctuation, spaces and combining accents, belong to every script).
_SCRIPT_SETS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_ANY_SCRIPT = frozenset({"COMMON", "INHERITED"})


# Characters a person reads as '/' or '\\': those NFKC folds to a text holding one (the full-width
# solidus, 'a/c' as one character...), and the symbols and punctuation Unicode 15.1's
# confusables.txt (TR39) lists as confusable with one (the division slash, the big solidus...);
# its letters (Katakana NO U+30CE, the ideograph U+4E3F) are ordinary writing and stay allowed.
# tests/test_naming.py derives the same set from unicodedata and confusable-homoglyphs' data.
_SEPARATOR_LOOKALIKES = frozenset(
    "\u1735\u2041\u2044\u2100\u2101\u2105\u2106\u2215\u2216\u2571\u27cb\u27cd\u29f5\u29f8"
    "\u29f9\u2f02\u2f03\u31d3\u31d4\ufe68\uff0f\uff3c\U0001d20f\U0001d23a\U0001d23b"
)


_IGNORABLE = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _IGNORABLE_RANGES) + "]")


def is_invisible(char: str) -> bool:
    """Whether char is a format or default-ignorable character (shown as nothing)."""
    return unicodedata.category(char) == "Cf" or _IGNORABLE.match(char) is not None


# confusable-homoglyphs' copy of Scripts.txt as sorted, disjoint ranges: (first, last, script
# index). Its own lookup (categories.alias) reads them through dictionaries on every step, 20
# times slower than bisect here (a reindex checks every stored name).
_RANGES = categories.categories_data["code_points_ranges"]
_RANGE_STARTS = [first for first, *_ in _RANGES]
_SCRIPTS = categories.categories_data["iso_15924_aliases"]


@functools.lru_cache(maxsize=4096)  # names repeat their letters: most lookups are hits
def script_of(char: str) -> str:
    """char's Unicode Script property ('LATIN', 'CYRILLIC', 'COMMON'...; 'Unknown' if none),
    from confusable-homoglyphs' copy of Scripts.txt."""
    if char < "\x80":  # the usual case: a Latin letter, or Common
        return "LATIN" if char.isalpha() else "COMMON"
    code = ord(char)
    at = bisect.bisect_right(_RANGE_STARTS, code) - 1
    if at < 0 or _RANGES[at][1] < code:
        return "Unknown"
    return str(_SCRIPTS[_RANGES[at][2]])


def _script_word(script: str) -> str:
    return script.replace("_", " ").title()


def _mixed_scripts(text: str) -> str | None:
    """How text mixes scripts beyond TR39's highly restrictive level, or None."""
    seen: dict[str, str] = {}  # script -> its first character in text
    for char in text:
        script = script_of(char)
        if script not in _ANY_SCRIPT:
            seen.setdefault(script, char)
    scripts = set(seen)
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in _SCRIPT_SETS):
        return None
    first, *others = seen  # in the order they appear
    words = " and ".join(_script_word(s) for s in [first, *others])
    examples = ", ".join(f"'{seen[s]}' is {_script_word(s)}" for s in others)
    return f"mixes {words} letters ({examples})"


def unicode_name_error(name: str, what: str) -> str | None:
    """Why name (already NFC) cannot be a name a person gives, or None."""
    if name.isascii():  # no format characters, look-alikes or scripts but Latin (the usual case)
        return None
    for char in name:
        if char < "\x80":
            continue
        if is_invisible(char):
            label = unicodedata.name(char, "an unnamed character").lower()
            return (
                f"Invalid {what}: it contains an invisible character (U+{ord(char):04X}, "
                f"{label}). Remove it and try again."
            )
        if char in _SEPARATOR_LOOKALIKES:
            return (
                f"Invalid {what}: '{char}' looks like the folder separator '/' or '\\'. "
                "Use another character."
            )
    # A name's extension ('.txt') says its type, not what it is called: 'Анализ.pdf' is one
    # script, so the part before the last dot and the extension are judged apart.
    stem, dot, extension = name.rpartition(".")
    parts = (stem, extension) if dot and stem else (name,)
    if mixed := next(filter(None, map(_mixed_scripts, parts)), None):
        return (
            f"Invalid {what}: it {mixed}, so it could pass for another name. "
            "Write it in one alphabet."
        )
    return None


def given_name(name: str, what: str, rule: Callable[[str], str | None]) -> str:
    """The name a person gave, spelt in NFC, once rule (the kind of name's own check) and the
    Unicode rules accept it; ApiError 400 with the reason otherwise. Every container, folder
    and file name a person gives passes here, so two spellings of one name are one name."""
    normal = unicodedata.normalize("NFC", name)
    if error := rule(normal) or unicode_name_error(normal, what):
        raise ApiError(400, error)
    return normal


def container_name(name: str) -> str:
    """A new container's name as given (NFC), or ApiError 400."""
    return given_name(name, "container name", container_name_error)


def folder_name(name: str) -> str:
    """A new folder's name as given (NFC), or ApiError 400."""
    return given_name(name, "folder name", folder_name_error)


def stored_name_problem(name: str, what: str) -> str | None:
    """Why a name already stored could not be given today (not NFC, or refused by the Unicode
    rules), or None: `storage reindex` keeps such names as they are and lists them."""
    if not unicodedata.is_normalized("NFC", name):
        return "not in NFC: a person can no longer give this spelling"
    return unicode_name_error(name, what)


def other_spellings(name: str) -> list[str]:
    """The other spellings of name that names stored before NFC was enforced may have: its
    NFC and NFD forms (macOS writes names decomposed), where they differ from name. (Partly
    composed spellings are possible but not looked for: `storage reindex` lists them.)"""
    return sorted({unicodedata.normalize(form, name) for form in ("NFC", "NFD")} - {name})
