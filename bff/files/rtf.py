"""RTF to plain text (striprtf), with a clear error for anything that is not an RTF document."""

from __future__ import annotations

from striprtf.striprtf import rtf_to_text

NOT_RTF = "This file is not a valid RTF document, so it could not be converted to text."


class InvalidRtf(ValueError):
    """The bytes are not a well-formed RTF document."""


def _braces_balanced(text: str) -> bool:
    depth = 0
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def convert_rtf(data: bytes) -> str:
    """The plain text of an RTF document; InvalidRtf if it is not one.

    RTF is 7-bit text whose other characters are escapes (`\\'e9`, `\\u233?`); latin-1 maps every
    byte to one character, so decoding never fails and striprtf resolves the escapes.
    """
    text = data.decode("latin-1")
    if not text.lstrip().startswith("{\\rtf") or not _braces_balanced(text):
        raise InvalidRtf(NOT_RTF)
    try:
        return str(rtf_to_text(text, errors="replace"))  # type: ignore[no-untyped-call]
    except (ValueError, LookupError, IndexError) as exc:
        raise InvalidRtf(NOT_RTF) from exc
