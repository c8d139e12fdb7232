"""The quarantine: content the malware scanner found, its bytes kept apart under
`.bff-quarantine/{id}` (never listed, never served through the file API), for an admin to
look at and remove (bff/scan/routes.py)."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

UPLOAD = "upload"  # found as it came in
RESCAN = "rescan"  # found when held content was scanned later


class Quarantined(Model):
    """One finding: where it was on its way to, what was found, who sent it, where it is kept."""

    id = fields.IntField(primary_key=True)
    container = fields.CharField(max_length=255)
    folder = fields.CharField(max_length=255)
    name = fields.CharField(max_length=255)
    signature = fields.CharField(max_length=255)
    size = fields.BigIntField()
    uploaded_by_id = fields.IntField(null=True)
    uploaded_by_name = fields.CharField(max_length=255)
    found_at = fields.DatetimeField(db_index=True)
    reason = fields.CharField(max_length=16)  # UPLOAD or RESCAN
    object_key = fields.TextField()  # its text form (storage's ObjectKey.parse)

    class Meta:
        table = "quarantined"
        table_description = "Content the malware scanner found, kept apart"
