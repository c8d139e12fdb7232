"""The search box's syntax (pure): what each input becomes, and that nothing can fail."""

from __future__ import annotations

import pytest

from bff.search.query import MAX_TERMS, Kind, Term, parse


def test_words_all_lower_case_tokens() -> None:
    assert parse("Penicillin  ALLERGY").terms == (
        Term(Kind.WORD, ("penicillin",)),
        Term(Kind.WORD, ("allergy",)),
    )


def test_a_quoted_phrase_and_an_excluded_word_and_a_prefix() -> None:
    assert parse('"discharge letter" -draft cardio*').terms == (
        Term(Kind.PHRASE, ("discharge", "letter")),
        Term(Kind.WORD, ("draft",), excluded=True),
        Term(Kind.PREFIX, ("cardio",)),
    )


def test_an_excluded_phrase() -> None:
    assert parse('pain -"chest pain"').terms == (
        Term(Kind.WORD, ("pain",)),
        Term(Kind.PHRASE, ("chest", "pain"), excluded=True),
    )
    assert parse('-"chest pain" x').excluded == (Term(Kind.PHRASE, ("chest", "pain"), True),)
    # A hyphen inside a word is not an exclusion of the phrase after it.
    assert not parse('x-"chest pain"').excluded


def test_punctuation_inside_a_word_makes_a_phrase_of_its_parts() -> None:
    assert parse("e.coli O'Brien").terms == (
        Term(Kind.WORD, ("e", "coli")),
        Term(Kind.WORD, ("o", "brien")),
    )


def test_accents_are_kept_for_the_index_to_fold_and_nfc_is_applied() -> None:
    assert parse("cafe\u0301").terms == (Term(Kind.WORD, ("café",)),)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"unbalanced quote', (Term(Kind.WORD, ("unbalanced",)), Term(Kind.WORD, ("quote",)))),
        ("-", ()),
        ("- -- ---", ()),
        ("***", ()),
        ('""', ()),
        ("a*", (Term(Kind.PREFIX, ("a",)),)),  # too short: the service refuses it
        ("NEAR(a b)", (Term(Kind.WORD, ("near", "a")), Term(Kind.WORD, ("b",)))),
        ("text:secret", (Term(Kind.WORD, ("text", "secret")),)),
        ("x AND y", tuple(Term(Kind.WORD, (w,)) for w in ("x", "and", "y"))),
        ("{col}: ^start", (Term(Kind.WORD, ("col",)), Term(Kind.WORD, ("start",)))),
        ("dup dup", (Term(Kind.WORD, ("dup",)),)),
    ],
)
def test_anything_else_is_words_or_nothing(text: str, expected: tuple[Term, ...]) -> None:
    assert parse(text).terms == expected


def test_terms_are_bounded() -> None:
    assert len(parse(" ".join(f"w{i}" for i in range(100))).terms) == MAX_TERMS


@pytest.mark.parametrize(
    "text",
    ['"', '"""', '-"', '" -', "\x00\x01", "😀 🙂*", "a" * 500, '-"a', "*-*", "\u200b", "_"],
)
def test_garbage_never_fails(text: str) -> None:
    parsed = parse(text)
    assert all(t.tokens and all(tok for tok in t.tokens) for t in parsed.terms)
