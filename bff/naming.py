"""Natural ordering and validation of container and folder names (pure functions)."""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"^(.*?)(\d+)$")
_MAX_SORT_NUMBER = 2**62
CONTAINER_NAME = re.compile(r"(?=.{3,63}\Z)[a-z0-9]+(?:-[a-z0-9]+)*")  # used with fullmatch
FOLDER_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")  # fullmatch: "$" would accept a final newline


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
