"""The append-only audit log, each entry chained to the previous one by SHA-256."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class AuditLog(Model):
    """One audited action. Never updated or deleted."""

    id = fields.BigIntField(primary_key=True)
    timestamp = fields.DatetimeField(db_index=True)
    user_id = fields.IntField(null=True, db_index=True)
    name = fields.CharField(max_length=100, default="")
    role = fields.CharField(max_length=16, default="")
    operation = fields.CharField(max_length=40, db_index=True)
    container_name = fields.CharField(max_length=63, default="", db_index=True)
    folder_name = fields.CharField(max_length=100, default="")
    blob_name = fields.CharField(max_length=255, default="")
    client_address = fields.CharField(max_length=64, default="")
    details = fields.CharField(max_length=500, default="")
    # The request that made the entry (X-Request-ID, as in the logs); "" outside a request.
    request_id = fields.CharField(max_length=64, default="", db_default="")
    prev_hash = fields.CharField(max_length=64)
    hash = fields.CharField(max_length=64, unique=True)

    class Meta:
        table = "audit_logs"
        # A folder's entries of one kind, newest first: the patient's last change, read with
        # every patient banner (bff/patients/service.py), and the access report's.
        indexes = (("container_name", "folder_name", "operation", "id"),)
