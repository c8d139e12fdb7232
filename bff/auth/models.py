"""Sign-in sessions: one row per issued token, deleted to revoke it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.users.models import User


class Session(Model):
    """A live session: a token is valid only while its row exists and has not expired."""

    id = fields.CharField(max_length=32, primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="sessions", on_delete=fields.CASCADE
    )
    user_id: int
    created_at = fields.DatetimeField(auto_now_add=True)
    expires_at = fields.DatetimeField(db_index=True)
    client_address = fields.CharField(max_length=64, default="")
    # A session that may only set up a second factor (BFF_MFA_REQUIRED_ROLES, bff/mfa/).
    restricted = fields.BooleanField(default=False, db_default=False)
    # When the session last proved its password or a factor: sign-in, or
    # POST /api/auth/confirm-identity (the step-up rule, bff/auth/stepup.py).
    authenticated_at = fields.DatetimeField(null=True)

    class Meta:
        table = "sessions"
