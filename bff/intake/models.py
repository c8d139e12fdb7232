"""The intake's items: each document that arrived from outside (scanner, mailbox, upload),
screened and kept under `.bff-intake/` until a person files it to a patient's folder or deletes
it (bff/intake/service.py)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from tortoise import fields
from tortoise.models import Model


class Source(StrEnum):
    """Where an item came from."""

    SCANNER = "scanner"
    MAILBOX = "mailbox"
    UPLOAD = "upload"


class Status(StrEnum):
    """An item's state: waiting in the inbox, filed to a folder, or deleted (with a reason)."""

    NEW = "new"
    FILED = "filed"
    DELETED = "deleted"


class IntakeItem(Model):
    """One document in the intake. Its bytes are the object `.bff-intake/{object_id}`; its
    sha256 is unique among items still new (migration 0039's partial index, not expressible
    here): the same content is never in the inbox twice, and a document deleted or filed may
    come in again. Who filed or deleted it are
    kept by id and by name (the name for the 409 a second filer reads, and after the account
    is gone)."""

    id = fields.IntField(primary_key=True)
    source = fields.CharEnumField(Source, max_length=16)
    # Source details, shown in the inbox to intake holders: the file's own name (a filed
    # document's name unless the filer gives another), and a mail's sender, subject and
    # Message-ID (empty for other sources; a split's parts keep their original's). Once filed,
    # the sender goes on with the file's source (bff/files/sources.py, migration 0040), shown
    # to the folder's staff; the subject and Message-ID stay here.
    file_name = fields.CharField(max_length=255)
    sender = fields.CharField(max_length=320, default="")
    subject = fields.CharField(max_length=998, default="")
    message_id = fields.CharField(max_length=998, default="")
    sha256 = fields.CharField(max_length=64)
    object_id = fields.CharField(max_length=64, unique=True)  # its bytes: .bff-intake/{object_id}
    content_type = fields.CharField(max_length=255)
    size = fields.BigIntField()
    page_count = fields.IntField(null=True)  # a PDF's pages (1 for an image; null: not known)
    status = fields.CharEnumField(Status, max_length=16, default=Status.NEW, db_index=True)
    # A patient suggestion and its evidence (bff/intake/suggest.py fills it; null: none yet).
    suggestion: fields.Field[Any] = fields.JSONField(null=True)
    received_at = fields.DatetimeField(db_index=True)
    # An upload's uploader, or the person whose split made the part (the routing's split keeps
    # the original's); null: the scanner's and the mailbox's.
    received_by_id = fields.IntField(null=True)
    received_by_name = fields.CharField(max_length=255, default="")
    # Filed: to which folder (by id, and by names as they were), under which name, by whom, when.
    filed_folder_id = fields.IntField(null=True)
    filed_container = fields.CharField(max_length=255, default="")
    filed_folder = fields.CharField(max_length=255, default="")
    filed_name = fields.CharField(max_length=255, default="")
    filed_by_id = fields.IntField(null=True)
    filed_by_name = fields.CharField(max_length=255, default="")
    filed_at = fields.DatetimeField(null=True)
    # Routing (bff/intake/routing.py): pending until one process has routed it; claimed by
    # routing_holder until routing_until (then another may claim it); done.
    routing = fields.CharField(max_length=16, default="pending")
    routing_holder = fields.CharField(max_length=255, default="")
    routing_until = fields.DatetimeField(null=True)
    routing_attempts = fields.IntField(default=0)  # claims taken (a stop's given back uncounted)
    # A part split from a batch: the verified cover sheet routing it ({"folderId", "sheetId"}).
    route: fields.Field[Any] = fields.JSONField(null=True)
    # What the routing found a person should know (a sheet that did not verify...): sentences.
    problems: fields.Field[Any] = fields.JSONField(null=True)
    # Deleted: by whom, when and why (a reason is required).
    deleted_by_id = fields.IntField(null=True)
    deleted_by_name = fields.CharField(max_length=255, default="")
    deleted_at = fields.DatetimeField(null=True)
    deleted_reason = fields.CharField(max_length=500, default="")

    class Meta:
        table = "intake_items"
        table_description = "Documents that arrived from outside, waiting to be filed"
