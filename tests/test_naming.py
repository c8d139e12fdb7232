"""Natural ordering and name validation (pure functions of bff/naming.py), and the Unicode
rules of every name a person gives, with their data checked against Unicode's."""

from __future__ import annotations

import unicodedata

import pytest
from confusable_homoglyphs import confusables

from bff import naming
from bff.errors import ApiError
from bff.files.names import given_file_name
from bff.naming import (
    container_name,
    container_name_error,
    folder_name,
    folder_name_error,
    is_invisible,
    natural_sorted,
    other_spellings,
    sort_key,
    stored_name_problem,
)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("patient-10", ("patient-", 10)),
        ("Patient-2", ("patient-", 2)),
        ("patient", ("patient", -1)),
        ("123", ("", 123)),
        ("ward-1a", ("ward-1a", -1)),
        ("p007", ("p", 7)),
        ("a1b22", ("a1b", 22)),
        ("", ("", -1)),
    ],
)
def test_sort_key(name: str, key: tuple[str, int]) -> None:
    assert sort_key(name) == key


def test_sort_key_caps_huge_numbers() -> None:
    prefix, number = sort_key("p-" + "9" * 90)
    assert prefix == "p-"
    assert number == 2**62  # fits a 64-bit column
    assert sort_key("p-" + "9" * 90) == sort_key("p-" + "9" * 91)


def test_natural_sorted_numbers_by_value() -> None:
    names = ["patient-10", "patient-2", "patient-1", "patient-100", "patient-20"]
    assert natural_sorted(names) == [
        "patient-1",
        "patient-2",
        "patient-10",
        "patient-20",
        "patient-100",
    ]


def test_natural_sorted_prefix_first_case_insensitive() -> None:
    names = ["beta-1", "Alpha-10", "alpha-2", "alpha", "Beta"]
    assert natural_sorted(names) == ["alpha", "alpha-2", "Alpha-10", "Beta", "beta-1"]


def test_natural_sorted_is_total_and_stable_for_ties() -> None:
    # Same key: the name itself decides, so the order never depends on input order.
    names = ["p-07", "p-7", "P-7"]
    assert natural_sorted(names) == natural_sorted(list(reversed(names)))
    assert natural_sorted(names) == ["P-7", "p-07", "p-7"]
    assert natural_sorted([]) == []


@pytest.mark.parametrize("name", ["abc", "a" * 63, "ward-1", "1-2-3", "a-1", "x9z"])
def test_valid_container_names(name: str) -> None:
    assert container_name_error(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "",
        "ab",
        "a" * 64,
        "Ward",
        "ward_1",
        "ward.1",
        "ward--1",
        "-ward",
        "ward-",
        "ward 1",
        "wärd",
        "ward\n",
        "ward-1\n",
    ],
)
def test_invalid_container_names(name: str) -> None:
    message = container_name_error(name)
    assert message is not None
    assert "3 to 63" in message


@pytest.mark.parametrize(
    "name", ["a", "Z" * 100, "...", ".x", "patient_1.v2-final", "-", "_", "007"]
)
def test_valid_folder_names(name: str) -> None:
    assert folder_name_error(name) is None


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "a" * 101, "a/b", "a\\b", "a b", "pätient", "a:b", "a\n", "patient-1\n"],
)
def test_invalid_folder_names(name: str) -> None:
    message = folder_name_error(name)
    assert message is not None
    assert "1 to 100" in message


# --- The one check of names people give (issue 30 point 5) ---------------------------------

DECOMPOSED = "cafe\u0301.txt"  # 'e' + a combining acute: NFC composes it to 'é'


def test_a_given_name_is_spelt_in_nfc() -> None:
    assert given_file_name(DECOMPOSED) == "caf\u00e9.txt"
    assert given_file_name("  caf\u00e9.txt ") == "caf\u00e9.txt"
    assert folder_name("patient-1") == "patient-1" and container_name("ward-7") == "ward-7"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("h\u0435llo.txt", "mixes Latin and Cyrillic letters ('\u0435' is Cyrillic)"),
        ("\u0430pple.pdf", "mixes Cyrillic and Latin letters ('p' is Latin)"),
        ("lab.p\u0501f", "mixes Latin and Cyrillic letters"),  # the extension alone mixes
        ("\u0391\u03bd\u03b1\u03bb\u03c5\u03c3\u03b7 MRI.pdf", "mixes Greek and Latin letters"),
        ("\u0410\u043d\u0430\u043b\u0438\u0437 \u03b1.pdf", "mixes Cyrillic and Greek letters"),
        ("\ud55c\uae00\u3042.txt", "mixes Hangul and Hiragana letters"),
        ("hello\u200b.txt", "invisible character (U+200B, zero width space)"),
        ("a\u200db.txt", "invisible character (U+200D, zero width joiner)"),
        ("\ufeffnotes.txt", "invisible character (U+FEFF, zero width no-break space)"),
        ("co\u00adde.txt", "invisible character (U+00AD, soft hyphen)"),
        ("x\u200fy.txt", "invisible character (U+200F, right-to-left mark)"),
        ("note\ufe0f.txt", "invisible character (U+FE0F, variation selector-16)"),
        ("\u3164.txt", "invisible character (U+3164, hangul filler)"),
        ("reports\uff0f2026.pdf", "'\uff0f' looks like the folder separator"),
        ("a\u2215b.txt", "'\u2215' looks like the folder separator"),
        ("a\uff3cb.txt", "'\uff3c' looks like the folder separator"),
        ("\u2100.txt", "'\u2100' looks like the folder separator"),  # 'a/c' as one character
    ],
)
def test_look_alike_names_are_refused_with_a_reason(name: str, words: str) -> None:
    with pytest.raises(ApiError) as refused:
        given_file_name(name)
    assert refused.value.status == 400
    assert refused.value.message.startswith("Invalid file name: ")
    assert words in refused.value.message


@pytest.mark.parametrize(
    "name",
    [
        "Lab results 2026.pdf",
        "caf\u00e9 cr\u00e8me.txt",
        "\u0410\u043d\u0430\u043b\u0438\u0437 \u043a\u0440\u043e\u0432\u0438.pdf",  # Cyrillic
        "\u0391\u03bd\u03ac\u03bb\u03c5\u03c3\u03b7.pdf",  # Greek
        "\u6771\u4eac\u30bf\u30ef\u30fc\u3068Tokyo 2026.txt",  # Latin+Han+Hiragana+Katakana
        "\u30ce\u30fc\u30c8.txt",  # Katakana 'no' looks like '/' but is a letter
        "\u53f0\u5317\u3105\u3106 Taipei.txt",  # Latin+Han+Bopomofo
        "\uc11c\uc6b8 \u6f22\u5b57 Seoul.txt",  # Latin+Han+Hangul
        "\u05d1\u05d3\u05d9\u05e7\u05d4.\u05d3\u05d5\u05d7",  # Hebrew
        "x-\u0301.txt",  # an Inherited mark counts as no script
        "\u0645\u0644\u0641.pdf",  # Arabic with a Latin extension
    ],
)
def test_one_script_names_are_accepted(name: str) -> None:
    assert given_file_name(name) == unicodedata.normalize("NFC", name)


def test_a_stored_name_that_could_not_be_given_is_described() -> None:
    assert stored_name_problem("caf\u00e9.txt", "file name") is None
    assert "not in NFC" in (stored_name_problem(DECOMPOSED, "file name") or "")
    assert "Cyrillic" in (stored_name_problem("h\u0435llo.txt", "file name") or "")
    assert other_spellings("caf\u00e9.txt") == [DECOMPOSED]
    assert other_spellings(DECOMPOSED) == ["caf\u00e9.txt"]
    assert other_spellings("plain.txt") == []


def test_the_invisible_characters_are_unicodes_default_ignorable_and_format_ones() -> None:
    """The table in bff/naming.py with unicodedata's Cf is exactly the `regex` package's
    Default_Ignorable_Code_Point and Cf (its Unicode data is newer than Python's)."""
    regex = pytest.importorskip("regex")
    unicode_says = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cf}]")
    differ = [
        f"U+{code:04X}"
        for code in range(0x110000)
        if bool(unicode_says.match(chr(code))) != is_invisible(chr(code))
    ]
    assert differ == []


def test_the_separator_look_alikes_come_from_unicode_data() -> None:
    """What NFKC folds to a text with '/' or '\\', and the symbols and punctuation that
    confusables.txt (confusable-homoglyphs' copy) lists as confusable with either."""
    folded = set()
    for code in range(0x80, 0x110000):
        text = unicodedata.normalize("NFKC", chr(code))
        if "/" in text or "\\" in text:
            folded.add(chr(code))
    listed = {
        glyph["c"]
        for separator in ("/", "\\")
        for glyph in confusables.confusables_data[separator]
        if unicodedata.category(glyph["c"])[0] in "SP"
    }
    assert folded | listed == naming._SEPARATOR_LOOKALIKES
