"""What the user tests share: the user fields, a body with no secrets, an admin, a valid body."""

from __future__ import annotations

import json
from typing import Any

from quart.testing import QuartClient as Client

from bff.users.models import Role
from config.settings import Settings
from tests.factories import PASSWORD, StaffMember, make_staff

USER_FIELDS = {
    "id",
    "userId",
    "name",
    "username",
    "role",
    "containerAssignments",
    "folderAssignments",
}
# GET and PUT /api/users/{id} also say whether the user has a second factor.
USER_DETAIL_FIELDS = USER_FIELDS | {"secondFactor", "ssoLinked", "intake"}


def assert_no_secrets(body: Any) -> None:
    """No password or hash anywhere in a response body."""
    text = json.dumps(body).lower()
    assert "password" not in text
    assert "argon2" not in text
    assert PASSWORD not in text


async def json_body(response: Any) -> Any:
    """A response's JSON body, checked to hold no secrets."""
    body = await response.get_json()
    assert_no_secrets(body)
    return body


async def login_status(client: Client, username: str, password: str) -> int:
    """The status of a sign-in attempt."""
    response = await client.post(
        "/api/auth/login", json={"username": username, "password": password}
    )
    return response.status_code


async def make_admin(settings: Settings) -> StaffMember:
    """An admin with an open session."""
    return await make_staff(settings, Role.ADMIN)


def user_payload(**overrides: Any) -> dict[str, Any]:
    """A valid body for creating a user, with some fields replaced."""
    data: dict[str, Any] = {
        "name": "Dana Scully",
        "username": "dscully",
        "password": "trust-no-1-ever",
        "role": "doctor",
    }
    data.update(overrides)
    return data
