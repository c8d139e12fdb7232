"""Passkeys through the real app, with a software authenticator answering the server's real
WebAuthn options (py_webauthn checks every signature): registration, the second sign-in step,
and refusals of forged or foreign assertions."""

from __future__ import annotations

from typing import Any

from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.mfa import service
from bff.mfa.models import Passkey
from bff.users.models import Role
from config.settings import Settings
from tests.factories import StaffMember, make_staff
from tests.mfa.helpers import SoftAuthenticator, b64url, call, login, mfa_token_for, second_step


async def _register(
    client: Client, who: StaffMember, authenticator: SoftAuthenticator, label: str = "Laptop"
) -> dict[str, Any]:
    options = await call(client, "POST", "/api/auth/mfa/webauthn/register/options", who.token)
    assert options.status_code == 200
    body = await options.get_json()
    assert body["rp"]["id"] == "localhost"  # BFF_PUBLIC_URL's host
    credential = authenticator.create(body)
    created = await call(
        client,
        "POST",
        "/api/auth/mfa/webauthn/register",
        who.token,
        json={"credential": credential, "label": label},
    )
    assert created.status_code == 200, await created.get_data()
    result: dict[str, Any] = await created.get_json()
    return result


async def _options(client: Client, mfa_token: str) -> dict[str, Any]:
    response = await call(
        client, "POST", "/api/auth/login/mfa/webauthn/options", json={"mfaToken": mfa_token}
    )
    assert response.status_code == 200, await response.get_data()
    result: dict[str, Any] = await response.get_json()
    return result


async def test_register_and_sign_in_with_a_passkey(client: Client, settings: Settings) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    authenticator = SoftAuthenticator(settings.public_url)
    created = await _register(client, doctor, authenticator)
    assert created["label"] == "Laptop" and len(created["recoveryCodes"]) == 10
    assert created["token"] is None  # a full session stays as it is
    status = await (await call(client, "GET", "/api/auth/mfa", doctor.token)).get_json()
    assert [p["label"] for p in status["passkeys"]] == ["Laptop"]
    assert status["passkeys"][0]["lastUsedAt"] is None and status["totp"] is False
    # A second passkey is not a first factor: no new recovery codes.
    second = await _register(client, doctor, SoftAuthenticator(settings.public_url), "Phone")
    assert second["recoveryCodes"] is None
    mfa_token = await mfa_token_for(client, doctor.user.username)
    first = await (await login(client, doctor.user.username)).get_json()
    assert first["methods"] == ["webauthn", "recovery"]
    options = await _options(client, mfa_token)
    assert options["rpId"] == "localhost" and len(options["allowCredentials"]) == 2
    done = await second_step(client, mfa_token, webauthn=authenticator.get(options))
    assert done.status_code == 200, await done.get_data()
    assert (
        await call(client, "GET", "/api/auth/me", (await done.get_json())["token"])
    ).status_code == 200
    used = await Passkey.get(label="Laptop")
    assert used.last_used_at is not None and used.sign_count == authenticator.counter
    success = await AuditLog.filter(operation="mfa_success").first()
    assert success is not None and success.details == "method=webauthn"


async def test_forged_and_foreign_assertions_are_refused(
    client: Client, settings: Settings
) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    nurse = await make_staff(settings, Role.NURSE)
    mine = SoftAuthenticator(settings.public_url)
    theirs = SoftAuthenticator(settings.public_url)
    await _register(client, doctor, mine)
    await _register(client, nurse, theirs)
    mfa_token = await mfa_token_for(client, doctor.user.username)
    options = await _options(client, mfa_token)
    # The nurse's own (valid) passkey over the doctor's challenge: not the doctor's passkey.
    nurse_key = next(iter(theirs.keys))
    foreign = theirs.get({**options, "allowCredentials": [{"id": b64url(nurse_key)}]})
    refused = await second_step(client, mfa_token, webauthn=foreign)
    assert refused.status_code == 401
    assert (await refused.get_json())["message"] == service.PASSKEY_FAILED
    # A signature over another challenge.
    stale = mine.get({**options, "challenge": b64url(b"another challenge entirely!")})
    assert (await second_step(client, mfa_token, webauthn=stale)).status_code == 401
    # Another origin (a phishing site).
    phished = SoftAuthenticator(
        "https://portal.example.net", keys=mine.keys, counter=mine.counter + 5
    )
    assert (await second_step(client, mfa_token, webauthn=phished.get(options))).status_code == 401
    # Garbage.
    junk = await second_step(client, mfa_token, webauthn={"id": "x", "response": {}})
    assert junk.status_code == 401
    assert await AuditLog.filter(operation="mfa_failed").count() == 4
    # The real one still works: the token was not used up by failures.
    assert (await second_step(client, mfa_token, webauthn=mine.get(options))).status_code == 200


async def test_registration_needs_fresh_options_and_a_valid_credential(
    client: Client, settings: Settings
) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    authenticator = SoftAuthenticator(settings.public_url)
    without = await call(
        client,
        "POST",
        "/api/auth/mfa/webauthn/register",
        nurse.token,
        json={"credential": {"id": "x"}, "label": "x"},
    )
    assert without.status_code == 400
    assert (await without.get_json())["message"] == service.NO_REGISTRATION
    options = await (
        await call(client, "POST", "/api/auth/mfa/webauthn/register/options", nurse.token)
    ).get_json()
    wrong_origin = SoftAuthenticator("http://evil.example").create(options)
    refused = await call(
        client,
        "POST",
        "/api/auth/mfa/webauthn/register",
        nurse.token,
        json={"credential": wrong_origin, "label": "x"},
    )
    assert refused.status_code == 400
    # The options were used up by that attempt.
    replay = await call(
        client,
        "POST",
        "/api/auth/mfa/webauthn/register",
        nurse.token,
        json={"credential": authenticator.create(options), "label": "x"},
    )
    assert replay.status_code == 400
    assert await Passkey.filter(user_id=nurse.user.id).count() == 0


async def test_remove_a_passkey(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    other = await make_staff(settings, Role.NURSE)
    await _register(client, nurse, SoftAuthenticator(settings.public_url))
    passkey = await Passkey.get(user_id=nurse.user.id)
    url = f"/api/auth/mfa/webauthn/{passkey.id}"
    not_theirs = await call(client, "DELETE", url, other.token)
    assert not_theirs.status_code == 404
    assert (await call(client, "DELETE", url, nurse.token)).status_code == 200
    status = await (await call(client, "GET", "/api/auth/mfa", nurse.token)).get_json()
    assert status == {"totp": False, "passkeys": [], "recoveryCodesLeft": 0}


async def test_passkeys_per_user_are_bounded(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    for i in range(service.MAX_PASSKEYS):
        await Passkey.create(
            user_id=nurse.user.id, credential_id=f"cred-{i}", public_key="x", label=f"Key {i}"
        )
    refused = await call(client, "POST", "/api/auth/mfa/webauthn/register/options", nurse.token)
    assert refused.status_code == 409
    assert (await refused.get_json())["message"] == service.TOO_MANY_PASSKEYS
