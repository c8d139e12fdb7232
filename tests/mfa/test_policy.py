"""BFF_MFA_REQUIRED_ROLES: a member of a required role without a second factor signs in to a
restricted session that can only set one up; confirming ends it and returns a full session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from quart import Quart
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.auth.sessions import ENROL_FIRST
from bff.users.models import Role
from config.settings import SettingsError, load_settings
from tests.conftest import make_settings, started_app
from tests.factories import make_container, make_user
from tests.mfa.helpers import SoftAuthenticator, call, code, login


@pytest.fixture
async def policy_app(database_url: str, run_dir: Path) -> AsyncIterator[Quart]:
    settings = make_settings(database_url, run_dir, mfa_required_roles="doctor, admin")
    async with started_app(settings) as app:
        yield app


async def _restricted(client: Client, username: str) -> str:
    response = await login(client, username)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["mfaEnrolmentRequired"] is True
    return str(body["token"])


async def test_a_restricted_session_can_only_enrol(policy_app: Quart) -> None:
    client = policy_app.test_client()
    doctor = await make_user(Role.DOCTOR)
    container = await make_container()
    token = await _restricted(client, doctor.username)
    me = await call(client, "GET", "/api/auth/me", token)
    assert me.status_code == 200
    for method, url in [
        ("GET", "/api/assignments/containers"),
        ("GET", f"/api/assignments/containers/{container.name}/folders"),
        ("GET", "/api/auth/validate-token"),
        ("POST", "/api/auth/logout-all"),
        ("GET", "/api/assignments/my-assignments"),
        ("DELETE", "/api/auth/mfa/totp"),
    ]:
        response = await call(client, method, url, token, json={})
        assert response.status_code == 403, (method, url, response.status_code)
        assert (await response.get_json())["message"] == ENROL_FIRST
    assert await AuditLog.filter(operation="access_denied").count() >= 1
    # Setting up an authenticator works; confirming ends this session and returns a full one.
    secret = (await (await call(client, "POST", "/api/auth/mfa/totp", token)).get_json())["secret"]
    confirmed = await call(
        client, "POST", "/api/auth/mfa/totp/confirm", token, json={"code": code(secret)}
    )
    assert confirmed.status_code == 200
    body = await confirmed.get_json()
    assert len(body["recoveryCodes"]) == 10 and body["token"]
    assert (await call(client, "GET", "/api/auth/me", token)).status_code == 401
    assert (
        await call(client, "GET", "/api/assignments/containers", body["token"])
    ).status_code == 200
    # From now on the doctor signs in with a second step.
    assert (await (await login(client, doctor.username)).get_json())["mfaRequired"] is True


async def test_other_roles_sign_in_as_before(policy_app: Quart) -> None:
    client = policy_app.test_client()
    nurse = await make_user(Role.NURSE)
    body = await (await login(client, nurse.username)).get_json()
    assert set(body) == {"token", "user"}
    assert (
        await call(client, "GET", "/api/assignments/containers", body["token"])
    ).status_code == 200


async def test_a_restricted_session_can_log_out_and_register_a_passkey(policy_app: Quart) -> None:
    client = policy_app.test_client()
    admin = await make_user(Role.ADMIN)
    token = await _restricted(client, admin.username)
    options = await (
        await call(client, "POST", "/api/auth/mfa/webauthn/register/options", token)
    ).get_json()
    authenticator = SoftAuthenticator("http://localhost:8000")
    created = await call(
        client,
        "POST",
        "/api/auth/mfa/webauthn/register",
        token,
        json={"credential": authenticator.create(options), "label": "Laptop"},
    )
    assert created.status_code == 200, await created.get_data()
    body = await created.get_json()
    assert body["token"] and len(body["recoveryCodes"]) == 10
    assert (await call(client, "GET", "/api/users", body["token"])).status_code == 200
    other = await _restricted(client, (await make_user(Role.DOCTOR)).username)
    assert (await call(client, "POST", "/api/auth/logout", other)).status_code == 200
    assert (await call(client, "GET", "/api/auth/me", other)).status_code == 401


def test_an_unknown_role_is_refused_at_start() -> None:
    with pytest.raises(SettingsError, match="BFF_MFA_REQUIRED_ROLES"):
        load_settings(mfa_required_roles="doctor,janitor")
    with pytest.raises(SettingsError, match="BFF_MFA_KEY"):
        load_settings(mfa_key="short")
