"""Natural ordering and name validation (pure functions of bff/naming.py)."""

from __future__ import annotations

import pytest

from bff.naming import container_name_error, folder_name_error, natural_sorted, sort_key


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
