"""The index of stored files, so listings and statistics never walk the storage."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from bff.containers.models import Folder


class StoredFile(Model):
    """One listed file of a patient folder (the bytes live in storage under the same name)."""

    id = fields.IntField(primary_key=True)
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="files", on_delete=fields.CASCADE
    )
    name = fields.CharField(max_length=255)
    content_type = fields.CharField(max_length=255)
    size = fields.BigIntField()
    last_modified = fields.DatetimeField()
    # Lower-case extension without the dot, or 'none': what the statistics group by.
    extension = fields.CharField(max_length=32)
    is_profile_image = fields.BooleanField(default=False)
    converted_from_rtf = fields.BooleanField(default=False)
    original_rtf_name = fields.CharField(max_length=255, null=True)
    folder_id: int

    class Meta:
        table = "files"
        unique_together = (("folder", "name"),)
        indexes = (("folder_id", "extension"),)


class PendingUpload(Model):
    """An upload whose bytes are staged but not yet indexed (one row per staged object)."""

    id = fields.IntField(primary_key=True)
    container = fields.CharField(max_length=255)
    folder = fields.CharField(max_length=255)
    # The storage name the staged object gets when the upload commits.
    name = fields.CharField(max_length=255)
    staging_key = fields.CharField(max_length=100, unique=True)
    started_at = fields.DatetimeField()
    # Refreshed while the bytes stream in: the sweep takes only uploads silent for its grace.
    alive_at = fields.DatetimeField(db_index=True)
    # Which process wrote it (host:pid), for an operator reading the table.
    instance = fields.CharField(max_length=255)

    class Meta:
        table = "pending_uploads"
