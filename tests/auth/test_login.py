"""Sign-in, sessions and their revocation, login throttling."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
import pytest
from argon2 import Parameters, PasswordHasher, Type, extract_parameters
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.auth.models import Session
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import PASSWORD, make_staff, make_user


async def login(client: Client, username: str, password: str = PASSWORD, addr: str = "10.0.0.1"):
    return await client.post(
        "/api/auth/login",
        json={"username": username, "password": password},
        scope_base={"client": (addr, 40000)},
    )


async def test_login_returns_token_with_user_object(client: Client) -> None:
    user = await make_user(Role.DOCTOR, username="dr-who", name="Dr Who")
    response = await login(client, "dr-who")
    assert response.status_code == 200
    body = await response.get_json()
    assert body["user"] == {
        "id": user.id,
        "userId": user.id,
        "name": "Dr Who",
        "username": "dr-who",
        "role": "doctor",
        "intake": False,
    }
    claims = jwt.decode(body["token"], options={"verify_signature": False})
    assert claims["user"]["role"] == "doctor"
    assert "password" not in str(claims)
    me = await client.get("/api/auth/me", headers={"x-auth-token": body["token"]})
    assert me.status_code == 200
    assert (await me.get_json())["user"]["username"] == "dr-who"


async def test_login_is_case_insensitive_on_username(client: Client) -> None:
    await make_user(Role.NURSE, username="nurse-joy")
    assert (await login(client, "  Nurse-Joy ")).status_code == 200


async def test_login_failure_is_generic_and_audited(client: Client) -> None:
    await make_user(Role.NURSE, username="nurse-a")
    wrong_password = await login(client, "nurse-a", "wrong password")
    no_such_user = await login(client, "nobody-here", "wrong password")
    assert wrong_password.status_code == no_such_user.status_code == 401
    assert await wrong_password.get_json() == await no_such_user.get_json()
    assert (await wrong_password.get_json())["message"] == "Invalid username or password."
    failures = await AuditLog.filter(operation="login_failed").order_by("id")
    assert [f.name for f in failures] == ["nurse-a", "nobody-here"]
    assert failures[0].client_address == "10.0.0.1"


async def test_an_unknown_user_costs_one_argon2_verification_like_a_known_one(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No timing difference tells whether a username exists: both paths verify the password
    once against an argon2id hash of the same cost. Counted, not timed, so a loaded machine
    cannot make it fail."""
    await make_user(Role.NURSE, username="timing-nurse")
    verified: list[Parameters] = []
    real_verify = PasswordHasher.verify

    def counting_verify(self: PasswordHasher, hash: str | bytes, password: str | bytes) -> bool:
        verified.append(extract_parameters(hash if isinstance(hash, str) else hash.decode()))
        return real_verify(self, hash, password)

    monkeypatch.setattr(PasswordHasher, "verify", counting_verify)
    known = await login(client, "timing-nurse", "wrong password", addr="10.1.0.1")
    [known_cost] = verified
    verified.clear()
    unknown = await login(client, "timing-ghost", "wrong password", addr="10.1.0.2")
    [unknown_cost] = verified
    assert known.status_code == unknown.status_code == 401
    assert unknown_cost == known_cost
    assert known_cost.type is Type.ID


@pytest.mark.parametrize(
    "body",
    [{"username": "", "password": "x"}, {"username": "a"}, {"password": "x"}, [], "text"],
)
async def test_login_rejects_bad_bodies_with_json_400(client: Client, body: object) -> None:
    response = await client.post("/api/auth/login", json=body)
    assert response.status_code == 400
    assert "message" in await response.get_json()


async def test_malformed_json_is_400(client: Client) -> None:
    response = await client.post(
        "/api/auth/login", data="{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert (await response.get_json())["message"]


@pytest.mark.parametrize(
    "token",
    [None, "", "garbage", "a.b.c", jwt.encode({"sid": "x", "sub": "1", "exp": 9e9}, "k" * 40)],
)
async def test_missing_or_bad_tokens_are_401_json(client: Client, token: str | None) -> None:
    headers = {} if token is None else {"x-auth-token": token}
    response = await client.get("/api/auth/me", headers=headers)
    assert response.status_code == 401
    assert (await response.get_json())["message"]


async def test_expired_token_is_401(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings)
    claims = jwt.decode(nurse.token, options={"verify_signature": False})
    claims["exp"] = int((datetime.now(UTC) - timedelta(minutes=1)).timestamp())
    expired = jwt.encode(claims, settings.signing_key(), algorithm="HS256")
    response = await client.get("/api/auth/me", headers={"x-auth-token": expired})
    assert response.status_code == 401
    assert (await response.get_json())[
        "message"
    ] == "Your session has expired. Please log in again."


async def test_expired_session_row_is_401(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings)
    await Session.filter(user_id=nurse.user.id).update(
        expires_at=datetime.now(UTC) - timedelta(seconds=1)
    )
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 401


async def test_validate_token(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings)
    response = await client.get("/api/auth/validate-token", headers=nurse.headers)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["valid"] is True
    assert body["user"]["userId"] == nurse.user.id


async def test_logout_ends_only_this_session(client: Client) -> None:
    await make_user(Role.NURSE, username="two-devices")
    first = (await (await login(client, "two-devices")).get_json())["token"]
    second = (await (await login(client, "two-devices")).get_json())["token"]
    response = await client.post("/api/auth/logout", headers={"x-auth-token": first})
    assert response.status_code == 200
    assert (await client.get("/api/auth/me", headers={"x-auth-token": first})).status_code == 401
    assert (await client.get("/api/auth/me", headers={"x-auth-token": second})).status_code == 200
    assert await AuditLog.filter(operation="logout").count() == 1


async def test_logout_all_ends_every_session(client: Client, settings: Settings) -> None:
    await make_user(Role.NURSE, username="many-devices")
    tokens = [(await (await login(client, "many-devices")).get_json())["token"] for _ in range(3)]
    other = await make_staff(settings)
    response = await client.post("/api/auth/logout-all", headers={"x-auth-token": tokens[0]})
    assert response.status_code == 200
    assert (await response.get_json())["sessionsEnded"] == 3
    for token in tokens:
        assert (
            await client.get("/api/auth/me", headers={"x-auth-token": token})
        ).status_code == 401
    assert (await client.get("/api/auth/me", headers=other.headers)).status_code == 200


async def test_throttles_failed_logins_per_username_and_address(database_url: str, run_dir) -> None:
    settings = make_settings(database_url, run_dir, login_max_failures=3)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="target")
        for _ in range(3):
            assert (await login(client, "target", "bad", addr="10.9.0.1")).status_code == 401
        blocked = await login(client, "target", PASSWORD, addr="10.9.0.1")
        assert blocked.status_code == 429
        assert int(blocked.headers["Retry-After"]) > 0
        assert "Too many failed sign-in attempts" in (await blocked.get_json())["message"]
        # another username from the same address, and the user elsewhere, are unaffected
        await make_user(Role.NURSE, username="bystander")
        assert (await login(client, "bystander", addr="10.9.0.1")).status_code == 200
        assert (await login(client, "target", addr="10.9.0.2")).status_code == 200


async def test_throttles_failed_logins_per_address(database_url: str, run_dir) -> None:
    settings = make_settings(database_url, run_dir, login_max_failures_per_address=4)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="real-user")
        for i in range(4):
            await login(client, f"guess-{i}", "bad", addr="10.8.0.1")
        assert (await login(client, "real-user", addr="10.8.0.1")).status_code == 429
        assert (await login(client, "real-user", addr="10.8.0.2")).status_code == 200


async def test_successful_login_resets_username_counter(database_url: str, run_dir) -> None:
    settings = make_settings(database_url, run_dir, login_max_failures=3)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="forgetful")
        for _ in range(2):
            await login(client, "forgetful", "bad")
        assert (await login(client, "forgetful")).status_code == 200
        for _ in range(2):
            assert (await login(client, "forgetful", "bad")).status_code == 401
        assert (await login(client, "forgetful")).status_code == 200


async def test_throttle_counters_shared_through_redis(database_url: str, run_dir) -> None:
    """Two app instances on one Redis see the same counters (as several processes would)."""
    import secrets

    redis_url = "redis://127.0.0.1:6379/11"
    username = "shared-" + secrets.token_hex(4)
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    settings = make_settings(database_url, run_dir, redis_url=redis_url, login_max_failures=2)
    async with started_app(settings) as app_a:
        await make_user(Role.NURSE, username=username)
        other = make_settings(database_url, run_dir, redis_url=redis_url, login_max_failures=2)
        from bff.app import create_app
        from bff.services import app_services

        app_b = create_app(other, bootstrap_admin=False)
        for _ in range(2):
            await login(app_a.test_client(), username, "bad", addr=address)
        assert (await login(app_b.test_client(), username, addr=address)).status_code == 429
        await app_services(app_b).login_throttle.aclose()


async def test_redis_down_does_not_block_login(database_url: str, run_dir) -> None:
    settings = make_settings(database_url, run_dir, redis_url="redis://127.0.0.1:1/0")
    async with started_app(settings) as app:
        await make_user(Role.NURSE, username="resilient")
        assert (await login(app.test_client(), "resilient")).status_code == 200


async def test_login_sweeps_expired_sessions(client: Client) -> None:
    user = await make_user(Role.NURSE, username="sweeper")
    await login(client, "sweeper")
    await Session.filter(user_id=user.id).update(expires_at=datetime.now(UTC) - timedelta(hours=1))
    await login(client, "sweeper")
    assert await Session.filter(user_id=user.id).count() == 1
