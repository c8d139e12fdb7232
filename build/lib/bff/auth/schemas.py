"""Request and response shapes of sign-in and sessions."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, StringConstraints

from bff.users.schemas import UserOut

Required = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class LoginRequest(BaseModel):
    """POST /api/auth/login."""

    username: Required
    password: Required


class TokenUser(BaseModel):
    """The user object a session token carries."""

    id: int
    userId: int
    name: str
    username: str
    role: str


class LoginResponse(BaseModel):
    """A new session token and its user."""

    token: str
    user: TokenUser


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
