"""Database ids as they arrive from outside: in URLs (a bounded converter) and in bodies.

Ids are 32-bit integer columns, so a larger number cannot name a row and would fail in the
database driver: URLs with one do not match a route (404), bodies with one are 400.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**31 - 1
DbId = Annotated[int, Field(ge=1, le=MAX_ID)]


class IdConverter(IntegerConverter):
    """`<int:...>` in our routes: 1 to 2**31-1."""

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        super().__init__(url_map, min=1, max=MAX_ID)
