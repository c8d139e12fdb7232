"""Database ids as they arrive from outside: in URLs (a converter) and in bodies (DbId).

Ids are 32-bit integer columns, so a larger number cannot name a row and would fail in the
database driver. In a URL such a number becomes 0, which names no row, so the route answers its
usual 404 (failing the converter instead would make Werkzeug answer 405 for routes that share the
path with another method). The length is checked before the digits are converted: an id of
thousands of digits costs nothing and is the same 404 (Python refuses to parse over 4,300
digits at all). In a body it is a 400.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from werkzeug.routing import BaseConverter

MAX_ID = 2**31 - 1
MAX_DIGITS = len(str(MAX_ID))
NO_ROW = 0
DbId = Annotated[int, Field(ge=1, le=MAX_ID)]


class IdConverter(BaseConverter):
    """`<int:...>` in our routes: digits only; out-of-range values map to an id no row has."""

    regex = r"\d+"
    weight = 50

    def to_python(self, value: str) -> int:
        """The id, or NO_ROW when it is outside the column's range."""
        digits = value.lstrip("0")
        if not digits or len(digits) > MAX_DIGITS or not digits.isascii():
            return NO_ROW
        number = int(digits)
        return number if number <= MAX_ID else NO_ROW

    def to_url(self, value: int) -> str:
        """The id as digits."""
        return str(int(value))
