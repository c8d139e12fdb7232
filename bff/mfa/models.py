"""Second factors of staff: a TOTP seed (sealed), passkeys, recovery codes (hashed), and the
short-lived challenges of the second sign-in step and of passkey registration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.users.models import User


class TotpFactor(Model):
    """A user's authenticator: the confirmed seed and/or one pending confirmation, both sealed
    (bff/mfa/sealing.py). last_step is the newest time step accepted (no replay)."""

    user: fields.OneToOneRelation[User] = fields.OneToOneField(
        "bff.User", related_name="totp", on_delete=fields.CASCADE, primary_key=True
    )
    user_id: int
    secret = fields.CharField(max_length=255, null=True)
    pending = fields.CharField(max_length=255, null=True)
    last_step = fields.BigIntField(default=0)
    confirmed_at = fields.DatetimeField(null=True)

    class Meta:
        table = "mfa_totp"


class Passkey(Model):
    """A WebAuthn credential registered by a user."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="passkeys", on_delete=fields.CASCADE
    )
    user_id: int
    credential_id = fields.CharField(max_length=1400, unique=True)  # base64url
    public_key = fields.TextField()  # base64url COSE key
    sign_count = fields.BigIntField(default=0)
    label = fields.CharField(max_length=100)
    created_at = fields.DatetimeField(auto_now_add=True)
    last_used_at = fields.DatetimeField(null=True)

    class Meta:
        table = "mfa_passkeys"


class RecoveryCode(Model):
    """One unused recovery code, as a keyed hash, deleted when used."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="recovery_codes", on_delete=fields.CASCADE
    )
    user_id: int
    code_hash = fields.CharField(max_length=64)

    class Meta:
        table = "mfa_recovery_codes"
        unique_together = (("user", "code_hash"),)


class MfaChallenge(Model):
    """A pending second step: the hash of an mfaToken (sign-in) or of a session id (passkey
    registration), with the WebAuthn challenge issued for it; deleted when used."""

    id = fields.CharField(max_length=64, primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="mfa_challenges", on_delete=fields.CASCADE
    )
    user_id: int
    purpose = fields.CharField(max_length=16)  # "login" or "register"
    webauthn_challenge = fields.CharField(max_length=128, null=True)
    expires_at = fields.DatetimeField(db_index=True)
    # A sign-in through the identity provider waiting for its local second step: the provider's
    # issuer, subject and session id (JSON), so the session it opens is the provider's too.
    origin = fields.TextField(null=True)

    class Meta:
        table = "mfa_challenges"
