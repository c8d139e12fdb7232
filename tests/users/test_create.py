"""Creating users (POST /api/auth/register): the stored user, its rules and refusals."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.naming import USERNAME_RULE
from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import make_user
from tests.helpers import audit_entries, error_message
from tests.users.helpers import USER_FIELDS, json_body, login_status, make_admin, user_payload


async def test_register_creates_a_user_who_can_sign_in(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    response = await client.post(
        "/api/auth/register",
        headers=admin.headers,
        json=user_payload(username="  DScully  ", role="nurse"),
    )
    assert response.status_code == 201
    body = await json_body(response)
    assert body["message"] == "User created successfully"
    user = body["user"]
    assert set(user) == USER_FIELDS
    assert user["username"] == "dscully"
    assert user["name"] == "Dana Scully"
    assert user["role"] == "nurse"
    assert user["containerAssignments"] == [] and user["folderAssignments"] == []
    stored = await User.get(id=user["id"])
    assert stored.username == "dscully"
    assert stored.password_hash.startswith("$argon2id$")
    assert await login_status(client, "DSCULLY", "trust-no-1-ever") == 200

    entries = await audit_entries("user_create")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert entries[0].role == "admin"
    assert "user=dscully" in entries[0].details


async def test_register_defaults_to_doctor(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    data = user_payload()
    del data["role"]
    response = await client.post("/api/auth/register", headers=admin.headers, json=data)
    assert response.status_code == 201
    assert (await response.get_json())["user"]["role"] == "doctor"


async def test_register_refuses_admins(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=user_payload(role="admin")
    )
    message = await error_message(response, 400)
    assert "role" in message
    assert not await User.filter(username="dscully").exists()
    assert await audit_entries("user_create") == []


async def test_register_duplicate_username_is_409_case_insensitive(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    await make_user(Role.NURSE, username="dscully", name="First")
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=user_payload(username="DScully")
    )
    message = await error_message(response, 409)
    assert message == "The username 'dscully' is already taken."
    assert await User.filter(username="dscully").count() == 1
    assert (await User.get(username="dscully")).name == "First"
    assert await audit_entries("user_create") == []


async def test_register_validation(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    h = admin.headers
    bad_bodies = [
        (user_payload(password="short"), "password"),
        (user_payload(name=""), "name"),
        (user_payload(name="   "), "name"),
        (user_payload(username="ab"), "username"),
        (user_payload(username="has space"), "username"),
        (user_payload(username="x" * 51), "username"),
        (user_payload(role="surgeon"), "role"),
        (user_payload(name=123), "name"),
        (user_payload(password=12345678), "password"),
        ({k: v for k, v in user_payload().items() if k != "password"}, "password"),
        ({k: v for k, v in user_payload().items() if k != "username"}, "username"),
        ({k: v for k, v in user_payload().items() if k != "name"}, "name"),
    ]
    for body, field in bad_bodies:
        response = await client.post("/api/auth/register", headers=h, json=body)
        message = await error_message(response, 400)
        assert field in message, (body, message)
    assert await User.all().count() == 1
    assert await audit_entries("user_create") == []


async def test_usernames_follow_naming_rule_in_the_one_spelling(
    client: Client, settings: Settings
) -> None:
    """One mechanism for every username made (naming.py, as the command line, the first admin
    and single sign-on's provisioning use it): the spelling sign-in looks a username up in
    (full-width letters and the Kelvin sign are their plain letters), and the rule's refusal
    for look-alike letters of another script, invisible characters and markup."""
    admin = await make_admin(settings)
    h = admin.headers
    nurse = await make_user(Role.NURSE, username="nurse.nina")
    for bad in ("\u0430dmin", "dr.demo\u200b", "<img src=x onerror=alert(1)>", "x" * 51):
        created = await client.post(
            "/api/auth/register", headers=h, json=user_payload(username=bad)
        )
        assert USERNAME_RULE in await error_message(created, 400), bad
        changed = await client.put(
            f"/api/users/{nurse.id}",
            headers=h,
            json={"name": "Nina", "username": bad, "role": "nurse"},
        )
        assert USERNAME_RULE in await error_message(changed, 400), bad
    assert await User.all().count() == 2
    assert (await User.get(id=nurse.id)).username == "nurse.nina"
    full_width = user_payload(username=" \uff24\uff33cully ")  # full-width D and S
    response = await client.post("/api/auth/register", headers=h, json=full_width)
    assert (await json_body(response))["user"]["username"] == "dscully"
    again = await client.post(
        "/api/auth/register", headers=h, json=user_payload(username="DSCULLY")
    )
    assert await error_message(again, 409) == "The username 'dscully' is already taken."
    kelvin = {"name": "Kate", "username": "\u212aate", "role": "nurse"}
    response = await client.put(f"/api/users/{nurse.id}", headers=h, json=kelvin)
    assert (await json_body(response))["user"]["username"] == "kate"


async def test_register_bad_bodies_are_json_400(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    h = {**admin.headers, "content-type": "application/json"}
    for raw in ("{not json", "", "[]", '"text"', "null", "42"):
        response = await client.post("/api/auth/register", headers=h, data=raw)
        await error_message(response, 400)
    response = await client.post("/api/auth/register", headers=admin.headers, data="name=x")
    assert 400 <= response.status_code < 500
    assert (await response.get_json())["message"]
    assert await User.all().count() == 1


async def test_register_oversized_body_is_413(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=user_payload(name="x" * (2 * 1024 * 1024))
    )
    await error_message(response, 413)
    assert await User.all().count() == 1
