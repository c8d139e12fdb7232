"""Request and response shapes of single sign-on."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, StringConstraints


class SsoConfig(BaseModel):
    """GET /api/auth/oidc/config: what the login page shows."""

    enabled: bool
    displayName: str
    # Who may still sign in with a password: everyone, admins only (break-glass), nobody.
    localPasswords: Literal["all", "admins", "none"]


class CompleteRequest(BaseModel):
    """POST /api/auth/oidc/complete: the one-time code the callback left in the URL's
    fragment."""

    code: Annotated[str, StringConstraints(min_length=1, max_length=100)]


class BackchannelResponse(BaseModel):
    """POST /api/auth/oidc/backchannel-logout."""

    sessionsEnded: int
