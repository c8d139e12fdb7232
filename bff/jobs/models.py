"""The durable jobs of files: one row per file and kind of work, for the file's current
content (bff/jobs/service.py)."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from bff.files.models import StoredFile

PENDING = "pending"
RUNNING = "running"
DONE = "done"
FAILED = "failed"


class FileJob(Model):
    """One kind of work (`kind`: "text", ...) on a file's content `version_id`: pending until a
    process claims it (running, `claim` its token, until `claimed_until`), then done, or pending
    again after a failure (`next_attempt_at`), or failed for good with a person's `reason`. A
    new content of the file makes the row pending again for that version (a superseded claim
    cannot finish)."""

    id = fields.IntField(primary_key=True)
    file: fields.ForeignKeyRelation[StoredFile] = fields.ForeignKeyField(
        "bff.StoredFile", related_name="jobs", on_delete=fields.CASCADE
    )
    kind = fields.CharField(max_length=32)
    version_id = fields.CharField(max_length=40)
    state = fields.CharField(max_length=16)
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField()
    reason = fields.TextField(null=True)
    claim = fields.CharField(max_length=64, null=True)
    claimed_by = fields.CharField(max_length=255, null=True)
    claimed_until = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    file_id: int

    class Meta:
        table = "file_jobs"
        unique_together = (("file", "kind"),)
        indexes = (("state", "next_attempt_at"),)


# The kinds of work, each registered by its module (bff/jobs/service.py KIND_MODULES).
KIND_TEXT = "text"  # the text of a file for search (bff/search/jobs.py)
# A PDF's first page or an image, small (bff/files/thumbnails.py).
KIND_THUMBNAIL = "thumbnail"
