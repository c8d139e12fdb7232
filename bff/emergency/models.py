"""Emergency grants: short-lived, read-only access to one folder, opened by a SmartToken link."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from bff.containers.models import Folder
from bff.tokens.models import SmartToken


class EmergencyGrant(Model):
    """One responder's access, named by a random id kept in an HttpOnly cookie."""

    id = fields.CharField(max_length=64, primary_key=True)
    token: fields.ForeignKeyRelation[SmartToken] = fields.ForeignKeyField(
        "bff.SmartToken", related_name="grants", on_delete=fields.CASCADE
    )
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="emergency_grants", on_delete=fields.CASCADE
    )
    created_at = fields.DatetimeField(auto_now_add=True)
    expires_at = fields.DatetimeField(db_index=True)
    client_address = fields.CharField(max_length=64)
    token_id: int
    folder_id: int

    class Meta:
        table = "emergency_grants"
