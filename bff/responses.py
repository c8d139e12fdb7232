"""JSON responses serialised in one pass, for lists too large to build a model per entry."""

from __future__ import annotations

from typing import Any

import pydantic_core
from quart import Response


def json_body(value: Any, status: int = 200) -> Response:
    """A JSON response of plain data (dicts, lists, strings, numbers, datetimes as ISO 8601).

    pydantic-core writes it in one call; the route documents its shape with quart-schema's
    `document_response` and a test checks the body against that model.
    """
    return Response(pydantic_core.to_json(value), status=status, content_type="application/json")
