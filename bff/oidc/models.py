"""Single sign-on: accounts linked to an OpenID Provider's subjects, link codes an admin issued, the
provider's sessions behind ours, one-use marks, sign-in hand-overs, offers to link an account
and the subjects seen without a link."""

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
    # The hash of the browser cookie set at /start: only that browser takes the sign-in up
    browser = fields.CharField(max_length=64, default="")
    expires_at = fields.DatetimeField()

    class Meta:
        table = "oidc_handoffs"


class OidcLinkOffer(Model):
    """A sign-in the provider vouched for of a subject linked to no account: for a few minutes,
    the browser that started it (by its cookie's hash) may link it to a local account by that
    account's password (and second factor), stored by its one-time code's hash."""

    id = fields.CharField(max_length=64, primary_key=True)
    issuer = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=255)
    provider_sid = fields.CharField(max_length=255, default="")
    mfa = fields.BooleanField(default=False)
    browser = fields.CharField(max_length=64)
    expires_at = fields.DatetimeField(db_index=True)

    class Meta:
        table = "oidc_link_offers"


class OidcExpected(Model):
    """An admin's "link at next sign-in": a one-time link code the admin handed to the person
    (stored by its hash), which links the subject of a provider sign-in linked to no account to
    this user, once, until it expires. One per user (a new code replaces it)."""

    user: fields.OneToOneRelation[User] = fields.OneToOneField(
        "bff.User", related_name="oidc_expected", on_delete=fields.CASCADE, primary_key=True
    )
    user_id: int
    code_hash = fields.CharField(max_length=64, db_index=True, default="")
    expires_at = fields.DatetimeField()
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "oidc_expected"


class OidcSeen(Model):
    """A subject that signed in at the provider but is linked to no account (for a week), with
    what its claims said, so an admin can pick it when linking an account."""

    id = fields.IntField(primary_key=True)
    issuer = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=255)
    username = fields.CharField(max_length=100, default="")  # the username claim, as sent
    name = fields.CharField(max_length=100, default="")  # the name claim, as sent
    seen_at = fields.DatetimeField(db_index=True)

    class Meta:
        table = "oidc_seen"
        unique_together = (("issuer", "subject"),)
