"""Checks shared by the API tests: a refused call's message, the audit entries an operation
left, the built web app's page."""

from __future__ import annotations

from typing import Any

from bff.audit.models import AuditLog
from bff.web import DIST

# Paging and search values every paged listing refuses with a 400 (spec section 5's lists).
BAD_PAGING: list[dict[str, object]] = [
    {"page": 0},
    {"page": "abc"},
    {"pageSize": 0},
    {"pageSize": 1001},
    {"pageSize": "x"},
    {"q": "x" * 101},
]


async def error_message(response: Any, status: int) -> str:
    """The JSON message of a response that must have this status."""
    assert response.status_code == status, await response.get_data(as_text=True)
    body = await response.get_json()
    assert isinstance(body, dict)
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


async def audit_entries(operation: str) -> list[AuditLog]:
    """The audit entries of one operation, oldest first."""
    return await AuditLog.filter(operation=operation).order_by("id")


def web_app_index() -> bytes:
    """The built web app's index.html, which its pages must serve (`make frontend` builds it;
    `make test-sqlite` and `make test-postgres` build it before pytest)."""
    index = DIST / "index.html"
    assert index.is_file(), f"The web app is not built ({index} is missing): run `make frontend`"
    return index.read_bytes()
