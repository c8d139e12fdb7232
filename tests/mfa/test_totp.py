"""Authenticator codes (TOTP) and recovery codes through the real app: enrolment, the second
sign-in step, replay, single use, throttling, expiry, removal, secrets at rest."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pyotp
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.auth.models import Session
from bff.mfa import service, signin
from bff.mfa.models import MfaChallenge, RecoveryCode, TotpFactor
from bff.users.models import Role
from config.settings import Settings
from tests.factories import make_staff
from tests.mfa.helpers import call, code, enrol_totp, login, mfa_token_for, second_step


async def _operations() -> list[str]:
    return [e.operation for e in await AuditLog.all().order_by("id")]


async def test_enrolment_is_pending_until_confirmed(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    first = await (await call(client, "POST", "/api/auth/mfa/totp", nurse.token)).get_json()
    assert first["otpauthUrl"].startswith("otpauth://totp/")
    assert pyotp.parse_uri(first["otpauthUrl"]).secret == first["secret"]
    assert (await login(client, nurse.user.username)).status_code == 200  # nothing changed yet
    body = await (await login(client, nurse.user.username)).get_json()
    assert "token" in body and "mfaRequired" not in body
    # A new call replaces the pending secret: a code of the first no longer confirms.
    second = await (await call(client, "POST", "/api/auth/mfa/totp", nurse.token)).get_json()
    assert second["secret"] != first["secret"]
    wrong = await call(
        client,
        "POST",
        "/api/auth/mfa/totp/confirm",
        nurse.token,
        json={"code": code(first["secret"])},
    )
    assert wrong.status_code == 400
    assert (await wrong.get_json())["message"] == service.CONFIRM_WRONG
    confirmed = await call(
        client,
        "POST",
        "/api/auth/mfa/totp/confirm",
        nurse.token,
        json={"code": code(second["secret"])},
    )
    assert confirmed.status_code == 200
    codes = (await confirmed.get_json())["recoveryCodes"]
    assert len(codes) == len(set(codes)) == 10
    status = await (await call(client, "GET", "/api/auth/mfa", nurse.token)).get_json()
    assert status == {"totp": True, "passkeys": [], "recoveryCodesLeft": 10}
    again = await call(client, "POST", "/api/auth/mfa/totp", nurse.token)
    assert again.status_code == 409
    assert "mfa_enrol" in await _operations()


async def test_secrets_are_not_stored_in_the_clear(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    secret, codes, _ = await enrol_totp(client, nurse.token)
    row = await TotpFactor.get(user_id=nurse.user.id)
    assert row.secret is not None and secret not in row.secret
    assert row.secret.startswith("v1:")
    stored = [r.code_hash for r in await RecoveryCode.filter(user_id=nurse.user.id)]
    assert len(stored) == 10
    assert not any(c.replace("-", "") in h or c in h for c in codes for h in stored)
    # A sealed seed copied onto another user's row does not open there.
    other = await make_staff(settings, Role.NURSE)
    await TotpFactor.create(user_id=other.user.id, secret=row.secret)
    token = await mfa_token_for(client, other.user.username)
    assert (await second_step(client, token, code=code(secret))).status_code == 401


async def test_sign_in_with_a_code_and_no_replay(client: Client, settings: Settings) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    secret, _, _ = await enrol_totp(client, doctor.token)
    body = await (await login(client, doctor.user.username)).get_json()
    assert body["mfaRequired"] is True
    assert body["methods"] == ["totp", "recovery"]
    assert set(body) == {"mfaRequired", "mfaToken", "methods"}
    now_code = code(secret, 1)  # the enrolment used the current step
    done = await second_step(client, body["mfaToken"], code=now_code)
    assert done.status_code == 200, await done.get_data()
    signed_in = await done.get_json()
    assert signed_in["user"]["username"] == doctor.user.username
    me = await call(client, "GET", "/api/auth/me", signed_in["token"])
    assert me.status_code == 200
    # The same code again, with a fresh mfaToken: refused as a replay.
    replay = await second_step(
        client, await mfa_token_for(client, doctor.user.username), code=now_code
    )
    assert replay.status_code == 401
    assert (await replay.get_json())["message"] == signin.CODE_REUSED
    # The used mfaToken is no good again.
    reused = await second_step(client, body["mfaToken"], code=code(secret, 1))
    assert reused.status_code == 401
    assert (await reused.get_json())["message"] == signin.MFA_EXPIRED
    operations = await _operations()
    assert operations.count("mfa_success") == 1 and operations.count("mfa_failed") == 1


async def test_two_simultaneous_uses_of_one_code_let_one_in(
    client: Client, settings: Settings
) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    secret, _, _ = await enrol_totp(client, doctor.token)
    tokens = [await mfa_token_for(client, doctor.user.username) for _ in range(2)]
    now_code = code(secret, 1)
    results = await asyncio.gather(*(second_step(client, t, code=now_code) for t in tokens))
    assert sorted(r.status_code for r in results) == [200, 401]


async def test_wrong_and_expired(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    secret, _, _ = await enrol_totp(client, nurse.token)
    token = await mfa_token_for(client, nurse.user.username)
    wrong = await second_step(
        client, token, code="000000" if code(secret) != "000000" else "111111"
    )
    assert wrong.status_code == 401
    assert (await wrong.get_json())["message"] == signin.CODE_WRONG
    # A wrong code does not use the token up; an expired token is refused.
    await MfaChallenge.filter().update(expires_at=datetime.now(UTC) - timedelta(seconds=1))
    expired = await second_step(client, token, code=code(secret, 1))
    assert expired.status_code == 401
    assert (await expired.get_json())["message"] == signin.MFA_EXPIRED
    bogus = await second_step(client, "not-a-token", code=code(secret, 1))
    assert bogus.status_code == 401
    neither = await second_step(client, await mfa_token_for(client, nurse.user.username))
    assert neither.status_code == 400
    # Digits that are not ASCII ("²" is a digit to Python, and hmac refuses to compare it): a
    # wrong code, never a 500.
    for odd in ("²²²²²²", "١٢٣٤٥٦"):
        token = await mfa_token_for(client, nurse.user.username)
        refused = await second_step(client, token, code=odd)
        assert refused.status_code == 401, odd
        assert (await refused.get_json())["message"] == signin.CODE_WRONG


async def test_recovery_codes_work_once(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    _, codes, _ = await enrol_totp(client, nurse.token)
    token = await mfa_token_for(client, nurse.user.username)
    typed = codes[0].upper().replace("-", " ")  # as a person may type it
    assert (await second_step(client, token, code=typed)).status_code == 200
    again = await second_step(
        client, await mfa_token_for(client, nurse.user.username), code=codes[0]
    )
    assert again.status_code == 401
    status = await (await call(client, "GET", "/api/auth/mfa", nurse.token)).get_json()
    assert status["recoveryCodesLeft"] == 9
    success = await AuditLog.filter(operation="mfa_success").first()
    assert success is not None and success.details == "method=recovery"


async def test_wrong_codes_count_against_the_sign_in_throttle(
    client: Client, settings: Settings
) -> None:
    """Five wrong codes (the pair limit) and the sixth attempt is 429, even with a right code
    and even though the password was right each time in between."""
    nurse = await make_staff(settings, Role.NURSE)
    secret, _, _ = await enrol_totp(client, nurse.token)
    right = code(secret, 1)
    wrong = "123456" if right != "123456" else "654321"
    for _ in range(settings.login_max_failures):
        token = await mfa_token_for(client, nurse.user.username)
        assert (await second_step(client, token, code=wrong)).status_code == 401
    blocked = await second_step(client, token, code=right)
    assert blocked.status_code == 429
    assert "Retry-After" in blocked.headers
    assert (await login(client, nurse.user.username)).status_code == 429  # the password too
    # Another address is not locked out.
    other = await mfa_token_for(client, nurse.user.username, addr="10.0.0.2")
    assert (await second_step(client, other, addr="10.0.0.2", code=right)).status_code == 200


async def test_removing_needs_a_recent_code_or_password(client: Client, settings: Settings) -> None:
    """Removal and new codes are step-up routes (bff/auth/stepup.py): a session that proved
    itself long ago confirms a current code or the password first."""
    nurse = await make_staff(settings, Role.NURSE)
    secret, _, _ = await enrol_totp(client, nurse.token)
    await Session.filter(user_id=nurse.user.id).update(
        authenticated_at=datetime.now(UTC) - timedelta(hours=1)
    )
    refused = await call(client, "DELETE", "/api/auth/mfa/totp", nurse.token)
    assert refused.status_code == 403 and (await refused.get_json())["reauth"] is True
    confirm = "/api/auth/confirm-identity"
    assert (await call(client, "POST", confirm, nurse.token, json={})).status_code == 400
    wrong = await call(client, "POST", confirm, nurse.token, json={"password": "nope"})
    assert wrong.status_code == 400
    assert (await wrong.get_json())["message"] == signin.IDENTITY_WRONG
    right = await call(client, "POST", confirm, nurse.token, json={"code": code(secret, 1)})
    assert right.status_code == 200
    regenerated = await call(client, "POST", "/api/auth/mfa/recovery-codes", nurse.token)
    assert regenerated.status_code == 200
    assert len((await regenerated.get_json())["recoveryCodes"]) == 10
    removed = await call(client, "DELETE", "/api/auth/mfa/totp", nurse.token)
    assert removed.status_code == 200
    status = await (await call(client, "GET", "/api/auth/mfa", nurse.token)).get_json()
    assert status == {"totp": False, "passkeys": [], "recoveryCodesLeft": 0}
    body = await (await login(client, nurse.user.username)).get_json()
    assert "token" in body  # a plain sign-in again
    operations = await _operations()
    assert "mfa_remove" in operations and "mfa_recovery_codes" in operations


async def test_factor_changes_end_the_other_sessions(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    other = await (await login(client, nurse.user.username)).get_json()
    secret, _, confirmed = await enrol_totp(client, nurse.token)
    assert confirmed["token"] is None
    assert (await call(client, "GET", "/api/auth/me", other["token"])).status_code == 401
    assert (await call(client, "GET", "/api/auth/me", nurse.token)).status_code == 200
    token = await mfa_token_for(client, nurse.user.username)
    third = await (await second_step(client, token, code=code(secret, 1))).get_json()
    removed = await call(
        client,
        "DELETE",
        "/api/auth/mfa/totp",
        nurse.token,
        json={"password": "correct horse battery"},
    )
    assert removed.status_code == 200
    assert (await call(client, "GET", "/api/auth/me", third["token"])).status_code == 401
    assert (await call(client, "GET", "/api/auth/me", nurse.token)).status_code == 200
    assert await Session.filter(user_id=nurse.user.id).count() == 1


async def test_admin_reset(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    assistant = await make_staff(settings, Role.ASSISTANT)
    await enrol_totp(client, nurse.token)
    users = await (await call(client, "GET", "/api/users", admin.token)).get_json()
    badges = {u["username"]: u["secondFactor"] for u in users["users"]}
    assert badges == {
        admin.user.username: False,
        nurse.user.username: True,
        assistant.user.username: False,
    }
    page = await (await call(client, "GET", f"/api/users/{nurse.user.id}", admin.token)).get_json()
    assert page["user"]["secondFactor"] is True
    refused = await call(client, "DELETE", f"/api/users/{nurse.user.id}/mfa", assistant.token)
    assert refused.status_code == 403
    missing = await call(client, "DELETE", "/api/users/999999/mfa", admin.token)
    assert missing.status_code == 404
    reset = await call(client, "DELETE", f"/api/users/{nurse.user.id}/mfa", admin.token)
    assert reset.status_code == 200
    assert (await reset.get_json())["message"] == f"Second factor reset for {nurse.user.name}"
    assert (await call(client, "GET", "/api/auth/me", nurse.token)).status_code == 401
    assert await TotpFactor.filter(user_id=nurse.user.id).count() == 0
    assert await RecoveryCode.filter(user_id=nurse.user.id).count() == 0
    body = await (await login(client, nurse.user.username)).get_json()
    assert "token" in body
    entry = await AuditLog.filter(operation="mfa_reset").first()
    assert entry is not None and entry.user_id == admin.user.id
    assert f"user={nurse.user.username}" in entry.details


async def test_open_second_steps_are_bounded_per_user(client: Client, settings: Settings) -> None:
    """Right passwords are not throttled, so each user keeps only the newest few mfaTokens."""
    nurse = await make_staff(settings, Role.NURSE)
    secret, _, _ = await enrol_totp(client, nurse.token)
    tokens = [await mfa_token_for(client, nurse.user.username) for _ in range(8)]
    assert await MfaChallenge.filter(user_id=nurse.user.id).count() == 5
    oldest = await second_step(client, tokens[0], code=code(secret, 1))
    assert oldest.status_code == 401
    assert (await second_step(client, tokens[-1], code=code(secret, 1))).status_code == 200
