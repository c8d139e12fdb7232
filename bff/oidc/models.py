"""Single sign-on: accounts linked to an OpenID Provider's subjects, the provider's sessions
behind ours, one-use marks and sign-in hand-overs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.auth.models import Session
    from bff.users.models import User


class OidcLink(Model):
    """A user linked to a provider's subject (`sub`, unique within its issuer)."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="oidc_links", on_delete=fields.CASCADE
    )
    user_id: int
    issuer = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=255)
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "oidc_links"
        unique_together = (("issuer", "subject"),)


class OidcSession(Model):
    """A session opened through the provider, with the provider's session id (`sid`), so a
    back-channel logout of that sid ends it."""

    session: fields.OneToOneRelation[Session] = fields.OneToOneField(
        "bff.Session", related_name="oidc", on_delete=fields.CASCADE, primary_key=True
    )
    session_id: str
    issuer = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=255)
    provider_sid = fields.CharField(max_length=255, default="", db_index=True)

    class Meta:
        table = "oidc_sessions"


class OidcOnce(Model):
    """A value accepted once: a sign-in's `state`, a logout token's `jti`."""

    key = fields.CharField(max_length=64, primary_key=True)
    expires_at = fields.DatetimeField(db_index=True)

    class Meta:
        table = "oidc_once"


class OidcHandoff(Model):
    """A sign-in the provider vouched for, waiting (a minute) for the web app to take it up
    with the one-time code the callback gave the browser; stored by the code's hash."""

    id = fields.CharField(max_length=64, primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="oidc_handoffs", on_delete=fields.CASCADE
    )
    user_id: int
    issuer = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=255)
    provider_sid = fields.CharField(max_length=255, default="")
    mfa = fields.BooleanField(default=False)  # the provider did multi-factor authentication
    expires_at = fields.DatetimeField()

    class Meta:
        table = "oidc_handoffs"
