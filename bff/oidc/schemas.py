"""Request and response shapes of single sign-on."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, StringConstraints

from bff.auth.password_rule import MAX_LENGTH as PASSWORD_MAX_LENGTH

Code = Annotated[str, StringConstraints(min_length=1, max_length=100)]


class SsoConfig(BaseModel):
    """GET /api/auth/oidc/config: what the login page shows."""

    enabled: bool
    displayName: str
    # Who may still sign in with a password: everyone, admins only (break-glass), nobody.
    localPasswords: Literal["all", "admins", "none"]


class CompleteRequest(BaseModel):
    """POST /api/auth/oidc/complete: the one-time code the callback left in the URL's
    fragment."""

    code: Code


class LinkRequest(BaseModel):
    """POST /api/auth/oidc/link: the offer's one-time code (`#sso-link=` in the URL's fragment)
    and the local account's username and password, proving it once."""

    code: Code
    username: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=PASSWORD_MAX_LENGTH)]


class LinkCodeRequest(BaseModel):
    """POST /api/auth/oidc/link-code: the offer's one-time code (`#sso-link=` in the URL's
    fragment) and the link code an administrator issued for the person's account ("link at
    next sign-in"; case, spaces and dashes do not matter)."""

    code: Code
    linkCode: Annotated[str, StringConstraints(min_length=1, max_length=100)]


class BackchannelResponse(BaseModel):
    """POST /api/auth/oidc/backchannel-logout."""

    sessionsEnded: int


class SeenSubject(BaseModel):
    """A subject that signed in at the provider lately and is linked to no account, with what
    its claims said (they are the provider's to change: check before picking)."""

    subject: str
    username: str
    name: str
    seenAt: datetime


class UserSso(BaseModel):
    """GET /api/users/{id}/sso: a user's single sign-on on the admin's user page."""

    enabled: bool  # single sign-on is configured
    provider: str  # its display name
    admin: bool  # an admin account: linked by its subject only, never "at next sign-in"
    subject: str | None = None  # the provider's subject the user is linked to
    linkedAt: datetime | None = None
    expectedUntil: datetime | None = None  # a pending "link at next sign-in" (its link code)
    seen: list[SeenSubject]


class BindRequest(BaseModel):
    """PUT /api/users/{id}/sso-link: the provider's subject (`sub`) to link the user to."""

    subject: Annotated[str, StringConstraints(min_length=1, max_length=255)]


class ExpectResponse(BaseModel):
    """PUT /api/users/{id}/sso-expected: the new link code, shown this once (only its hash is
    kept), for the admin to hand to the person privately, and when it expires."""

    message: str
    linkCode: str
    expectedUntil: datetime
