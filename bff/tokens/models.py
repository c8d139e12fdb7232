"""SmartToken devices and their link to one patient folder."""

from __future__ import annotations

from enum import StrEnum

from tortoise import fields
from tortoise.models import Model

from bff.containers.models import Folder


class TokenStatus(StrEnum):
    """Where a device is in its lifecycle (spec section 4). Deleted tokens have no row."""

    UNCLAIMED = "unclaimed"
    ASSIGNED = "assigned"
    REVOKED = "revoked"


class SmartToken(Model):
    """A physical device a patient carries: its verification link opens the patient's folder."""

    id = fields.IntField(primary_key=True)
    token_id = fields.CharField(max_length=64, unique=True)
    secure_chip_id = fields.CharField(max_length=128, unique=True)
    status = fields.CharEnumField(TokenStatus, max_length=16, default=TokenStatus.UNCLAIMED)
    created_at = fields.DatetimeField(auto_now_add=True)
    # At most one token per folder: assigning a linked folder moves the link.
    folder: fields.ForeignKeyNullableRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="smart_tokens", null=True, unique=True, on_delete=fields.SET_NULL
    )
    patient_name = fields.CharField(max_length=200, null=True)
    patient_date_of_birth = fields.DateField(null=True)
    assigned_at = fields.DatetimeField(null=True)
    revoke_reason = fields.CharField(max_length=200, null=True)
    revoked_at = fields.DatetimeField(null=True)
    # NTAG 424 DNA SUN tags (none for static-link tokens): the 7-byte UID in hex, the tag's SDM
    # file-read key sealed (bff/tokens/tagkeys.py), the last accepted tap counter and its time.
    sun_uid = fields.CharField(max_length=14, unique=True, null=True)
    sun_key = fields.CharField(max_length=128, null=True)
    sun_counter = fields.IntField(null=True)
    last_tap_at = fields.DatetimeField(null=True)
    folder_id: int | None

    @property
    def is_sun(self) -> bool:
        """Whether taps are SUN messages (else the token has a static signed link)."""
        return self.sun_uid is not None

    class Meta:
        table = "smart_tokens"
