"""The password rule (issue 30 point 4; NIST SP 800-63B, ASVS 2.1) through every way a password
is set: registration, editing, the command line and the bootstrap admin, on the real app and
database; and passwords set before it (hashed as typed) still sign in."""

from __future__ import annotations

from pathlib import Path

import pytest
from argon2 import PasswordHasher
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.users.bootstrap import ensure_admin
from bff.users.models import Role, User
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import make_staff, make_user
from tests.test_cli import bff
from tests.users.helpers import login_status, make_admin, user_payload

# Accepted by the old rule (8 to 128 characters), refused now, each with what to do instead.
REFUSED = {
    "password": "too short: use at least 12 characters",
    " " * 8: "too short: use at least 12 characters",
    "123456789012": "too easy to guess",
    " " * 12: "too easy to guess",
    "passwordpassword": "too easy to guess",
    "qwertyuiop123": "too easy to guess",
    "dscully2026!": "too easy to guess",  # the username and a year
    "Dana Scully 1": "too easy to guess",  # the name
}
# "kettles" in full-width letters (U+FF4B ...), written by code point for the linter's sake
FULL_WIDTH_KETTLES = "".join(chr(ord(c) + 0xFEE0) for c in "kettles")
ADVICE = "Choose another, for example three or four unrelated words."


async def test_registration_refuses_short_common_and_guessable_passwords(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    for password, reason in REFUSED.items():
        response = await client.post(
            "/api/auth/register", headers=admin.headers, json=user_payload(password=password)
        )
        assert response.status_code == 400, password
        message = (await response.get_json())["message"]
        assert message.startswith(f"The password is {reason}"), (password, message)
        assert ADVICE in message or "A few unrelated words" in message
    assert not await User.filter(username="dscully").exists()
    assert not await AuditLog.filter(operation="user_create").exists()


async def test_long_and_unicode_passwords_are_accepted_and_normalised(
    client: Client, settings: Settings
) -> None:
    """No composition rules, 64+ characters, any script; the NFKC form is what is hashed, so the
    compatibility spelling and the plain one are the same password. 1025 characters: refused."""
    admin = await make_admin(settings)
    cases = {
        "long.one": ("tall ships and a quiet harbour at dawn " * 3, None),
        "grec.one": ("ωμέγα κύμα πέτρα ήλιος", None),
        # "ﬁ" and "ﬂ" are ligatures, full-width letters: NFKC makes them "fi", "fl", "kettles"
        "nfkc.one": ("ﬁve ﬂat " + FULL_WIDTH_KETTLES + " sing", "five flat kettles sing"),
    }
    for username, (password, plain) in cases.items():
        body = user_payload(username=username, password=password)
        response = await client.post("/api/auth/register", headers=admin.headers, json=body)
        assert response.status_code == 201, (await response.get_json(), password)
        assert await login_status(client, username, password) == 200
        if plain:
            assert await login_status(client, username, plain) == 200
    too_long = user_payload(username="too.long", password="ab3 " * 257)  # 1028 characters
    response = await client.post("/api/auth/register", headers=admin.headers, json=too_long)
    assert response.status_code == 400
    assert "1024" in (await response.get_json())["message"]


async def test_a_password_set_before_normalisation_still_signs_in(client: Client) -> None:
    """A hash made of the password as typed (before NFKC) keeps working."""
    typed = "ﬁre ﬂy old-hash"  # not in NFKC form
    await make_user(Role.NURSE, username="old.hash", password=typed)
    assert PasswordHasher().verify((await User.get(username="old.hash")).password_hash, typed)
    assert await login_status(client, "old.hash", typed) == 200
    assert await login_status(client, "old.hash", "fire fly old-hash") == 401


async def test_editing_refuses_a_weak_password_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="edit.me")
    before = (await User.get(id=nurse.user.id)).password_hash
    for password in ("123456789012", "editmeeditme"):
        response = await client.put(
            f"/api/users/{nurse.user.id}",
            headers=admin.headers,
            json={"name": "Edit Me", "username": "edit.me", "role": "nurse", "password": password},
        )
        assert response.status_code == 400
        assert (await response.get_json())["message"].startswith("The password is too easy")
    assert (await User.get(id=nurse.user.id)).password_hash == before
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "Edit Me", "username": "edit.me", "role": "nurse", "password": "lamp " * 3},
    )
    assert response.status_code == 400, "five characters repeated three times"


async def test_a_longer_minimum_is_a_setting(database_url: str, run_dir: Path) -> None:
    settings = make_settings(database_url, run_dir, password_min_length=20)
    async with started_app(settings) as app:
        client = app.test_client()
        admin = await make_admin(settings)
        response = await client.post(
            "/api/auth/register",
            headers=admin.headers,
            json=user_payload(password="trust-no-1-ever"),
        )
        assert response.status_code == 400
        assert "at least 20 characters" in (await response.get_json())["message"]


async def test_a_weak_bootstrap_admin_password_stops_the_start(
    database_url: str, run_dir: Path
) -> None:
    settings = make_settings(database_url, run_dir, admin_password="123456789012")
    async with started_app(settings):
        with pytest.raises(RuntimeError, match="BFF_ADMIN_PASSWORD cannot be used: The pass"):
            await ensure_admin(settings)
        assert not await User.filter(role=Role.ADMIN).exists()


@pytest.mark.parametrize("command", ["create", "reset-password"])
def test_the_command_line_refuses_a_weak_password(command: str, tmp_path: Path) -> None:
    args = ["--name", "Ann", "--role", "nurse"] if command == "create" else []
    done = bff(tmp_path, "users", command, "--username", "ann", *args, "--password", "password1234")
    assert done.returncode == 2
    assert done.stderr.startswith("The password is too easy to guess"), done.stderr
