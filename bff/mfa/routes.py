"""Second-factor endpoints under /api/auth: enrolment and removal (signed in, also from a
restricted session; sensitive changes, so `recent_auth`), confirming one's identity for them,
and the second sign-in step (public: it carries the mfaToken)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.auth import stepup
from bff.auth.policy import ANY_ROLE, allow, current_principal, public
from bff.auth.schemas import TokenUser
from bff.mfa import service, signin
from bff.mfa.schemas import (
    CodeRequest,
    ConfirmIdentity,
    IdentityConfirmed,
    MfaLogin,
    MfaLoginResponse,
    MfaStatus,
    MfaTokenRequest,
    PasskeyCreated,
    PasskeyOut,
    PasskeyRegistration,
    RecoveryCodes,
    TotpSetup,
)
from bff.request_context import client_address
from bff.services import app_services
from bff.users.schemas import Message

bp = Blueprint("mfa", __name__, url_prefix="/api/auth")


@bp.post("/login/mfa")
@public
@validate_request(MfaLogin)
@validate_response(MfaLoginResponse)
async def login_mfa(data: MfaLogin) -> MfaLoginResponse:
    """The second sign-in step: the mfaToken with a TOTP code, a recovery code or a passkey."""
    services = app_services()
    done = await signin.complete_login(
        data.mfaToken,
        data.code,
        data.webauthn,
        client_address(),
        services.settings,
        services.login_throttle,
    )
    return MfaLoginResponse(token=done.token, user=TokenUser.model_validate(done.user))


@bp.post("/login/mfa/webauthn/options")
@public
@validate_request(MfaTokenRequest)
async def login_passkey_options(data: MfaTokenRequest) -> dict[str, Any]:
    """WebAuthn request options for the second step (navigator.credentials.get)."""
    return await signin.login_passkey_options(data.mfaToken, app_services().settings)


@bp.get("/mfa")
@allow(ANY_ROLE, enrolment=True)
@validate_response(MfaStatus)
async def mfa_status() -> MfaStatus:
    """The caller's second factors."""
    found = await service.status(current_principal().user_id)
    return MfaStatus(
        totp=found.totp,
        passkeys=[
            PasskeyOut(id=p.id, label=p.label, createdAt=p.created_at, lastUsedAt=p.last_used_at)
            for p in found.passkeys
        ],
        recoveryCodesLeft=found.recovery_codes_left,
    )


@bp.post("/mfa/totp")
@allow(ANY_ROLE, enrolment=True, recent_auth=True)
@validate_response(TotpSetup)
async def start_totp() -> TotpSetup:
    """Start setting up an authenticator: a new pending secret (nothing changes until
    confirmed)."""
    secret, url = await service.start_totp(current_principal(), app_services().settings)
    return TotpSetup(secret=secret, otpauthUrl=url)


@bp.post("/mfa/totp/confirm")
@allow(ANY_ROLE, enrolment=True, recent_auth=True)
@validate_request(CodeRequest)
@validate_response(RecoveryCodes)
async def confirm_totp(data: CodeRequest) -> RecoveryCodes:
    """Confirm the pending authenticator with a code from it; returns recovery codes."""
    codes, token = await service.confirm_totp(
        current_principal(), data.code, app_services().settings, client_address()
    )
    return RecoveryCodes(recoveryCodes=codes, token=token)


@bp.post("/confirm-identity")
@allow(ANY_ROLE, enrolment=True)
@validate_request(ConfirmIdentity)
@validate_response(IdentityConfirmed)
async def confirm_identity(data: ConfirmIdentity) -> IdentityConfirmed:
    """Confirm it's you (the password, a current authenticator code or a recovery code) before
    a sensitive change: counts as a fresh sign-in for BFF_REAUTH_MINUTES and returns a
    one-use step-up proof for the x-step-up header."""
    services = app_services()
    proof = await signin.confirm_identity(
        current_principal(),
        data.code,
        data.password,
        services.settings,
        services.login_throttle,
        client_address(),
    )
    return IdentityConfirmed(
        message="Identity confirmed", stepUp=proof, expiresIn=stepup.PROOF_SECONDS
    )


@bp.delete("/mfa/totp")
@allow(ANY_ROLE, recent_auth=True)
@validate_response(Message)
async def remove_totp() -> Message:
    """Remove the authenticator."""
    await service.remove_totp(current_principal(), app_services().settings, client_address())
    return Message(message="Authenticator removed")


@bp.post("/mfa/webauthn/register/options")
@allow(ANY_ROLE, enrolment=True, recent_auth=True)
async def passkey_options() -> dict[str, Any]:
    """WebAuthn creation options for a new passkey (navigator.credentials.create)."""
    return await service.passkey_registration_options(current_principal(), app_services().settings)


@bp.post("/mfa/webauthn/register")
@allow(ANY_ROLE, enrolment=True, recent_auth=True)
@validate_request(PasskeyRegistration)
@validate_response(PasskeyCreated)
async def register_passkey(data: PasskeyRegistration) -> PasskeyCreated:
    """Register the passkey the browser created with the options just issued."""
    created = await service.register_passkey(
        current_principal(), data.credential, data.label, app_services().settings, client_address()
    )
    return PasskeyCreated(
        id=created.id,
        label=created.label,
        recoveryCodes=created.recovery_codes,
        token=created.token,
    )


@bp.delete("/mfa/webauthn/<int:passkey_id>")
@allow(ANY_ROLE, recent_auth=True)
@validate_response(Message)
async def remove_passkey(passkey_id: int) -> Message:
    """Remove a passkey."""
    await service.remove_passkey(
        current_principal(), passkey_id, app_services().settings, client_address()
    )
    return Message(message="Passkey removed")


@bp.post("/mfa/recovery-codes")
@allow(ANY_ROLE, recent_auth=True)
@validate_response(RecoveryCodes)
async def regenerate_recovery_codes() -> RecoveryCodes:
    """Ten new recovery codes replacing the old ones."""
    codes = await service.regenerate_recovery_codes(
        current_principal(), app_services().settings, client_address()
    )
    return RecoveryCodes(recoveryCodes=codes)
