"""Request and response shapes of second factors (under /api/auth)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field, StringConstraints

from bff.auth.password_rule import MAX_LENGTH as PASSWORD_MAX_LENGTH
from bff.auth.schemas import TokenUser

Code = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]
Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class TotpSetup(BaseModel):
    """POST /api/auth/mfa/totp: a pending authenticator seed, to show as a QR code."""

    secret: str
    otpauthUrl: str


class CodeRequest(BaseModel):
    """A code from the authenticator."""

    code: Code


class RecoveryCodes(BaseModel):
    """New single-use recovery codes (shown once); `token`: a full session, when confirmed
    from a restricted one."""

    recoveryCodes: list[str]
    token: str | None = None


class MfaLogin(BaseModel):
    """POST /api/auth/login/mfa: the mfaToken with a TOTP or recovery code, or a passkey
    assertion (the browser's PublicKeyCredential as JSON)."""

    mfaToken: Secret
    code: Code | None = None
    webauthn: dict[str, Any] | None = None


class MfaLoginResponse(BaseModel):
    """A session token and its user, as a plain sign-in."""

    token: str
    user: TokenUser


class MfaTokenRequest(BaseModel):
    """POST /api/auth/login/mfa/webauthn/options."""

    mfaToken: Secret


class PasskeyRegistration(BaseModel):
    """POST /api/auth/mfa/webauthn/register: the browser's new credential as JSON."""

    credential: dict[str, Any]
    label: Label = "Passkey"


class PasskeyCreated(BaseModel):
    """A registered passkey; recoveryCodes when it is the first factor, token when registered
    from a restricted session."""

    id: int
    label: str
    recoveryCodes: list[str] | None = None
    token: str | None = None


class PasskeyOut(BaseModel):
    """One passkey of the caller."""

    id: int
    label: str
    createdAt: datetime
    lastUsedAt: datetime | None


class MfaStatus(BaseModel):
    """GET /api/auth/mfa."""

    totp: bool
    passkeys: list[PasskeyOut]
    recoveryCodesLeft: int


class ConfirmIdentity(BaseModel):
    """POST /api/auth/confirm-identity: a current authenticator code, a recovery code or the
    password."""

    code: Code | None = None
    password: Annotated[str, Field(max_length=PASSWORD_MAX_LENGTH)] | None = None


class IdentityConfirmed(BaseModel):
    """The session counts as recently authenticated; `stepUp`: a one-use proof for the
    `x-step-up` header of one sensitive request within `expiresIn` seconds (the only way when
    BFF_REAUTH_MINUTES is 0)."""

    message: str
    stepUp: str
    expiresIn: int
