"""Step-up before sensitive changes (issue 30, point 1), replayed against the real app and
database: a stolen session that signed in long ago can no longer add a factor (locking the
owner out), replace recovery codes, or take over or destroy through the admin's actions, until
it proves the password or a factor (POST /api/auth/confirm-identity), which is throttled and
audited; with BFF_REAUTH_MINUTES=0 every such change carries a one-use proof of its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from quart import Quart
from quart.testing import QuartClient as Client

from bff.app import create_app
from bff.audit.models import AuditLog
from bff.auth import stepup
from bff.auth.models import Session
from bff.auth.sessions import open_session
from bff.mfa.models import MfaChallenge, Passkey, RecoveryCode, TotpFactor
from bff.mfa.signin import IDENTITY_WRONG
from bff.services import app_services
from bff.users.models import Role, User
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import PASSWORD, make_staff, make_user
from tests.mfa.helpers import call, code, enrol_totp, login, mfa_token_for, second_step

LONG_AGO = timedelta(minutes=16)  # past the default BFF_REAUTH_MINUTES of 15


async def _age(user: User, by: timedelta = LONG_AGO) -> None:
    """Make every session of user have last proved itself `by` ago (a stolen, old session)."""
    await Session.filter(user_id=user.id).update(authenticated_at=datetime.now(UTC) - by)


async def _confirm(client: Client, token: str, **identity: str) -> Any:
    return await call(client, "POST", "/api/auth/confirm-identity", token, json=identity)


async def _proof(client: Client, token: str, **identity: str) -> str:
    confirmed = await _confirm(client, token, **(identity or {"password": PASSWORD}))
    assert confirmed.status_code == 200, await confirmed.get_data()
    body = await confirmed.get_json()
    assert body["expiresIn"] == stepup.PROOF_SECONDS
    return str(body["stepUp"])


async def _refused(response: Any) -> None:
    assert response.status_code == 403, await response.get_data()
    assert await response.get_json() == {"message": stepup.REAUTH_REQUIRED, "reauth": True}


async def test_an_old_session_cannot_add_a_factor_or_replace_the_codes(
    client: Client, settings: Settings
) -> None:
    """The attack of issue 30: a stolen session enrols the attacker's authenticator or passkey
    (ending the owner's sessions, replacing the codes). Before the fix each call was 200."""
    nurse = await make_staff(settings, Role.NURSE)
    owner = await (await login(client, nurse.user.username)).get_json()  # the owner's device
    await RecoveryCode.create(user_id=nurse.user.id, code_hash="owner-code")
    await _age(nurse.user)
    stolen = nurse.token
    for method, url, body in (
        ("POST", "/api/auth/mfa/totp", None),
        ("POST", "/api/auth/mfa/totp/confirm", {"code": "123456"}),
        ("POST", "/api/auth/mfa/webauthn/register/options", None),
        ("POST", "/api/auth/mfa/webauthn/register", {"credential": {}}),
        ("POST", "/api/auth/mfa/recovery-codes", None),
        ("DELETE", "/api/auth/mfa/totp", None),
        ("DELETE", "/api/auth/mfa/webauthn/1", None),
    ):
        await _refused(await call(client, method, url, stolen, json=body))
    # Nothing changed: no pending seed or registration, the codes, the owner still signed in.
    assert not await TotpFactor.filter(user_id=nurse.user.id).exists()
    assert await MfaChallenge.filter(user_id=nurse.user.id).count() == 0
    codes = await RecoveryCode.filter(user_id=nurse.user.id).values_list("code_hash", flat=True)
    assert codes == ["owner-code"]
    assert (await call(client, "GET", "/api/auth/me", owner["token"])).status_code == 200
    denied = await AuditLog.filter(operation="access_denied").values_list("details", flat=True)
    assert "403 POST /api/auth/mfa/totp" in denied  # each refusal is audited
    # Proving the password renews the session: enrolment works (and ends the other sessions).
    await _proof(client, stolen)
    secret, _, _ = await enrol_totp(client, stolen)
    assert (await call(client, "GET", "/api/auth/me", owner["token"])).status_code == 401
    # Fifteen minutes later it asks again; a current code from the authenticator renews it.
    await _age(nurse.user)
    await _refused(await call(client, "POST", "/api/auth/mfa/recovery-codes", stolen))
    await _proof(client, stolen, code=code(secret, 1))
    renewed = await call(client, "POST", "/api/auth/mfa/recovery-codes", stolen)
    assert renewed.status_code == 200
    # A recovery code works too (and is spent).
    await _age(nurse.user)
    recovery = (await renewed.get_json())["recoveryCodes"][0]
    await _proof(client, stolen, code=recovery)
    assert (await _confirm(client, stolen, code=recovery)).status_code == 400


async def test_a_restricted_session_enrols_in_one_step_only_right_after_sign_in(
    database_url: str, run_dir: Path
) -> None:
    """The first enrolment of a restricted session needs no extra step right after sign-in,
    even with BFF_REAUTH_MINUTES=0; one that signed in long ago confirms its password first."""
    settings = make_settings(database_url, run_dir, mfa_required_roles="nurse", reauth_minutes=0)
    async with started_app(settings) as app:
        client = app.test_client()
        nurse = await make_user(Role.NURSE)
        body = await (await login(client, nurse.username)).get_json()
        assert body["mfaEnrolmentRequired"] is True
        _, _, confirmed = await enrol_totp(client, body["token"])  # one step, as before
        assert confirmed["token"]
        late = await make_user(Role.NURSE)
        token = (await (await login(client, late.username)).get_json())["token"]
        await _age(late, timedelta(minutes=6))
        await _refused(await call(client, "POST", "/api/auth/mfa/totp", token))
        proof = await _proof(client, token)
        started = await call(
            client, "POST", "/api/auth/mfa/totp", token, headers={stepup.HEADER: proof}
        )
        assert started.status_code == 200


async def test_old_admin_sessions_cannot_take_over_or_destroy(
    client: Client, settings: Settings
) -> None:
    """Each admin action that can take over an account or destroy data: 403 from an old
    session, nothing changed; after confirm-identity the same session may."""
    admin = await make_staff(settings, Role.ADMIN)
    victim = await make_staff(settings, Role.DOCTOR)
    await TotpFactor.create(user_id=victim.user.id, secret="v1:sealed")
    await _age(admin.user)
    edit = {"name": "Taken", "username": victim.user.username, "role": "doctor"}
    new_user = {"name": "Mallory", "username": "mallory", "password": "a long password"}
    actions: list[tuple[str, str, dict[str, Any] | None]] = [
        ("PUT", f"/api/users/{victim.user.id}", {**edit, "password": "attacker chosen"}),
        ("DELETE", f"/api/users/{victim.user.id}/mfa", None),
        ("DELETE", f"/api/users/{victim.user.id}", None),
        ("POST", "/api/auth/register", new_user),
        ("DELETE", "/api/blobs/ward/bed-1/trash/notes.txt", {"confirmation": "DELETE"}),
        ("DELETE", "/patients/admin/delete/" + "0" * 32, {"reason": "x"}),
        ("POST", "/patients/admin/register", {"secureChipId": "CHIP-0001"}),
    ]
    for method, url, body in actions:
        await _refused(await call(client, method, url, admin.token, json=body))
    assert (await login(client, victim.user.username)).status_code == 200  # old password
    assert (await call(client, "GET", "/api/auth/me", victim.token)).status_code == 200
    assert await TotpFactor.filter(user_id=victim.user.id).count() == 1
    assert not await User.filter(username="mallory").exists()
    await _proof(client, admin.token)
    answers = [
        (await call(client, method, url, admin.token, json=body)).status_code
        for method, url, body in actions
    ]
    # Past the step-up now: done, or refused for what the request itself says (404: no such
    # folder; 400: a deletion's reason must be one of the listed ones).
    assert answers == [200, 200, 200, 201, 404, 400, 201]
    assert not await User.filter(id=victim.user.id).exists()


async def test_with_zero_minutes_each_change_carries_its_own_proof(
    database_url: str, run_dir: Path
) -> None:
    """BFF_REAUTH_MINUTES=0: even a fresh session needs a confirmation with the change; a
    proof works once, only for its session, and never from the URL."""
    settings = make_settings(database_url, run_dir, reauth_minutes=0)
    async with started_app(settings) as app:
        client = app.test_client()
        admin = await make_staff(settings, Role.ADMIN)
        other_admin = await make_staff(settings, Role.ADMIN)
        first, second = await make_user(Role.NURSE), await make_user(Role.NURSE)
        url = f"/api/users/{first.id}"
        await _refused(await call(client, "DELETE", url, admin.token))
        proof = await _proof(client, admin.token)
        await _refused(await call(client, "DELETE", f"{url}?{stepup.HEADER}={proof}", admin.token))
        await _refused(
            await call(client, "DELETE", url, other_admin.token, headers={stepup.HEADER: proof})
        )
        done = await call(client, "DELETE", url, admin.token, headers={stepup.HEADER: proof})
        assert done.status_code == 200
        again = f"/api/users/{second.id}"
        await _refused(
            await call(client, "DELETE", again, admin.token, headers={stepup.HEADER: proof})
        )
        assert await User.filter(id=second.id).exists()


async def test_wrong_confirmations_are_throttled_and_audited(
    client: Client, settings: Settings
) -> None:
    """A stolen session cannot guess the password through confirm-identity: the sign-in
    throttle counts each wrong one (then 429 even for the right one), each is audited."""
    nurse = await make_staff(settings, Role.NURSE)
    assert (await _confirm(client, nurse.token)).status_code == 400  # neither given
    for _ in range(settings.login_max_failures):
        wrong = await _confirm(client, nurse.token, password="guess")
        assert wrong.status_code == 400
    blocked = await _confirm(client, nurse.token, password=PASSWORD)
    assert blocked.status_code == 429
    failed = await AuditLog.filter(operation="mfa_failed").values_list("details", flat=True)
    assert failed == ["method=password confirm"] * settings.login_max_failures
    assert (await login(client, nurse.user.username)).status_code == 429  # one throttle
    elsewhere = await call(
        client,
        "POST",
        "/api/auth/confirm-identity",
        nurse.token,
        addr="10.0.0.9",
        json={"password": PASSWORD},
    )
    assert elsewhere.status_code == 200
    success = await AuditLog.filter(operation="mfa_success").first()
    assert success is not None and success.details == "method=password confirm"
    assert success.user_id == nurse.user.id and success.client_address == "10.0.0.9"


async def test_an_authenticator_code_confirms_identity_once(
    client: Client, settings: Settings
) -> None:
    """A code is spent wherever it is accepted: one used at a confirmation, or at sign-in,
    confirms nothing again, from any session of the user, and is audited as a failure. (Issue
    48's mutation audit: confirm-identity checking a code without spending its time step, so
    a code seen over a shoulder or in a log confirmed again within its minute, went unnoticed.)"""
    nurse, doctor = await make_staff(settings, Role.NURSE), await make_staff(settings, Role.DOCTOR)
    seeds = {s.user.id: (await enrol_totp(client, s.token))[0] for s in (nurse, doctor)}
    # The nurse confirms with a code; the doctor signs in with one (enrolment spent the
    # current step of each: these are the next).
    await _age(nurse.user)
    confirmed = code(seeds[nurse.user.id], 1)
    await _proof(client, nurse.token, code=confirmed)
    signed_in = code(seeds[doctor.user.id], 1)
    done = await second_step(
        client, await mfa_token_for(client, doctor.user.username), code=signed_in
    )
    assert done.status_code == 200, await done.get_data()
    replays = [
        (nurse.user, nurse.token, confirmed),
        (nurse.user, await open_session(nurse.user, settings, "127.0.0.1"), confirmed),
        (doctor.user, doctor.token, signed_in),
        (doctor.user, (await done.get_json())["token"], signed_in),
    ]
    await _age(nurse.user)
    await _age(doctor.user)
    for _, token, used in replays:
        replay = await _confirm(client, token, code=used)
        assert replay.status_code == 400, await replay.get_data()
        assert await replay.get_json() == {"message": IDENTITY_WRONG}
        await _refused(await call(client, "POST", "/api/auth/mfa/recovery-codes", token))
    failed = await AuditLog.filter(operation="mfa_failed").values_list("user_id", "details")
    assert sorted(failed) == sorted((user.id, "method=totp confirm") for user, _, _ in replays)


async def test_a_confirmation_on_one_instance_counts_on_another(
    app: Quart, client: Client, settings: Settings
) -> None:
    """Two instances on one database, each with its session cache: the session is cached on B
    before it confirms on A, and B honours the confirmation at once (and the proof once)."""
    nurse = await make_staff(settings, Role.NURSE)
    await Passkey.create(user_id=nurse.user.id, credential_id="c", public_key="k", label="Key")
    other = make_settings(settings.database_url, settings.var_dir, session_cache_seconds=60)
    instance_b = create_app(other, bootstrap_admin=False)
    client_b = instance_b.test_client()
    await _age(nurse.user)
    assert (await call(client_b, "GET", "/api/auth/me", nurse.token)).status_code == 200
    assert app_services(instance_b).session_cache.get((await Session.get(user_id=nurse.user.id)).id)
    await _refused(await call(client_b, "POST", "/api/auth/mfa/recovery-codes", nurse.token))
    proof = await _proof(client, nurse.token)  # on instance A
    renewed = await call(client_b, "POST", "/api/auth/mfa/recovery-codes", nurse.token)
    assert renewed.status_code == 200
    await _age(nurse.user)
    headers = {stepup.HEADER: proof}
    used = await call(
        client_b, "POST", "/api/auth/mfa/recovery-codes", nurse.token, headers=headers
    )
    assert used.status_code == 200
    await _refused(
        await call(client, "POST", "/api/auth/mfa/recovery-codes", nurse.token, headers=headers)
    )
    await app_services(instance_b).login_throttle.aclose()


def test_every_sensitive_route_is_declared(app: Quart) -> None:
    """The routes issue 30 names as sensitive carry the flag (and nothing else needs it to
    read)."""
    from bff.auth.policy import policy_of

    flagged = {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        for method in rule.methods or ()
        if method in ("POST", "PUT", "DELETE", "GET")
        and (policy := policy_of(app, rule.endpoint)) is not None
        and policy.recent_auth
    }
    assert flagged == {
        ("POST", "/api/auth/mfa/totp"),
        ("POST", "/api/auth/mfa/totp/confirm"),
        ("DELETE", "/api/auth/mfa/totp"),
        ("POST", "/api/auth/mfa/webauthn/register/options"),
        ("POST", "/api/auth/mfa/webauthn/register"),
        ("DELETE", "/api/auth/mfa/webauthn/<int:passkey_id>"),
        ("POST", "/api/auth/mfa/recovery-codes"),
        ("POST", "/api/auth/register"),
        ("PUT", "/api/users/<int:user_id>"),
        ("DELETE", "/api/users/<int:user_id>"),
        ("DELETE", "/api/users/<int:user_id>/mfa"),
        # Single sign-on (issue 47): a link gives whoever holds the subject the account.
        ("PUT", "/api/users/<int:user_id>/sso-link"),
        ("PUT", "/api/users/<int:user_id>/sso-expected"),
        ("DELETE", "/api/blobs/<container>/<folder>/trash/<blob>"),
        ("DELETE", "/patients/admin/delete/<token_id>"),
        ("POST", "/patients/admin/register"),
        # Found by a review: each gives lasting access to patient folders (a SmartToken's link
        # moved to a folder or working again; an account of the attacker's assigned).
        ("POST", "/patients/admin/assign"),
        ("POST", "/patients/admin/reactivate"),
        ("POST", "/api/assignments/containers/<string:container>/users/<int:user_id>"),
        ("POST", "/api/assignments/containers/<container>/folders"),
        # Issue 49: deleting a quarantined file's bytes ends what an investigation could read.
        ("DELETE", "/api/admin/quarantine/<int:quarantine_id>"),
    }
