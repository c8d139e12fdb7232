"""Request and response shapes of sign-in and sessions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, RootModel, StringConstraints

from bff.auth.password_rule import MAX_LENGTH as PASSWORD_MAX_LENGTH
from bff.users.schemas import UserOut

Required = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class LoginRequest(BaseModel):
    """POST /api/auth/login."""

    username: Required
    password: Annotated[str, StringConstraints(min_length=1, max_length=PASSWORD_MAX_LENGTH)]


class TokenUser(BaseModel):
    """The user object a session token carries."""

    id: int
    userId: int
    name: str
    username: str
    role: str
    intake: bool = Field(
        False, description="May use the intake (issue 51): admins, and staff an admin granted it"
    )


class LoginResponse(BaseModel):
    """A new session token and its user."""

    token: str
    user: TokenUser


class EnrolmentLoginResponse(LoginResponse):
    """A restricted session: the user's role needs a second factor and they have none yet,
    so it may only set one up (BFF_MFA_REQUIRED_ROLES)."""

    mfaEnrolmentRequired: bool


class MfaRequiredResponse(BaseModel):
    """The password was right and the user has a second factor: no session yet, but a
    single-use mfaToken (5 minutes) for POST /api/auth/login/mfa."""

    mfaRequired: bool
    mfaToken: str
    methods: list[Literal["totp", "webauthn", "recovery"]]


class LoginResult(RootModel[EnrolmentLoginResponse | LoginResponse | MfaRequiredResponse]):
    """POST /api/auth/login: a session, a restricted session, or the second step's token."""


class ValidateResponse(BaseModel):
    """GET /api/auth/validate-token."""

    valid: bool
    user: TokenUser


class MeResponse(BaseModel):
    """GET /api/auth/me."""

    user: UserOut


class LogoutAllResponse(BaseModel):
    """POST /api/auth/logout-all."""

    message: str
    sessionsEnded: int


class LogoutResponse(BaseModel):
    """POST /api/auth/logout: for a session opened through the identity provider, where the
    browser goes next to sign out there too (its end-session endpoint), else null."""

    message: str
    endSessionUrl: str | None = None
