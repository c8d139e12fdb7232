"""The index of stored files, so listings and statistics never walk the storage."""

from __future__ import annotations

from typing import Any

from tortoise import fields
from tortoise.models import Model

from bff.containers.models import Folder
from bff.users.models import User


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
    # The current content's version id ('' for a file indexed before versions existed) and who
    # uploaded it (bff/files/versions.py).
    version_id = fields.CharField(max_length=40, default="", db_default="")
    uploaded_by_name = fields.CharField(max_length=255, default="", db_default="")
    uploaded_by_role = fields.CharField(max_length=32, default="", db_default="")
    # What the content checks found (bff/files/content.py): a PDF's active content, named
    # ("JavaScript, embedded files"; "" for none), and whether the viewer can show it (false: a
    # damaged PDF kept by BFF_DAMAGED_PDF=keep). Versions and trash entries keep them too.
    active_content = fields.TextField(default="", db_default="")
    displayable = fields.BooleanField(default=True, db_default=True)
    # The malware scan (bff/scan/): "unscanned" (no scanner configured, or stored before),
    # "clean", or "held" (stored while the scanner was unavailable, BFF_SCAN_UNAVAILABLE=hold:
    # shown to admins only until a scan lets it out); when it was last scanned.
    scan_state = fields.CharField(
        max_length=16, default="unscanned", db_default="unscanned", db_index=True
    )
    scanned_at = fields.DatetimeField(null=True)
    # When a rescan of this content last failed to reach a verdict (None: not since its last
    # one): it is tried again after the other files due (bff/scan/rescan.py).
    scan_tried_at = fields.DatetimeField(null=True)
    # Where the content came from when the intake filed it (bff/files/sources.py: its kind,
    # a mail's sender, whether a cover sheet filed it, the intake item); null: uploaded to the
    # folder (migration 0040). Versions and trash entries keep it too.
    source: fields.Field[Any] = fields.JSONField(null=True)
    folder_id: int

    class Meta:
        table = "files"
        unique_together = (("folder", "name"),)
        indexes = (("folder_id", "extension"),)


class FileVersion(Model):
    """An earlier content of a file, kept at `.bff-versions/{name}/{version_id}` (or, while the
    file is in the trash, under its trash entry)."""

    id = fields.IntField(primary_key=True)
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="file_versions", on_delete=fields.CASCADE
    )
    name = fields.CharField(max_length=255)
    version_id = fields.CharField(max_length=40)
    # Set while the file is in the trash (the trash entry's id).
    trash_id = fields.CharField(max_length=40, null=True)
    content_type = fields.CharField(max_length=255)
    size = fields.BigIntField()
    last_modified = fields.DatetimeField()
    uploaded_by_name = fields.CharField(max_length=255, default="")
    uploaded_by_role = fields.CharField(max_length=32, default="")
    # The kept RTF original versioned with the text (its bytes at `{version_id}.rtf-original`).
    original_rtf_name = fields.CharField(max_length=255, null=True)
    # What the content checks found in this content (as StoredFile's).
    active_content = fields.TextField(default="", db_default="")
    displayable = fields.BooleanField(default=True, db_default=True)
    # The malware scan's state of this content when it was current (bff/scan/): a held one is
    # the admins' only, as the file was; a restore brings it back (migration 0029). A held or
    # unscanned one is scanned by the rescan; scan_tried_at as StoredFile's (migration 0031).
    scan_state = fields.CharField(max_length=16, default="unscanned", db_default="unscanned")
    scanned_at = fields.DatetimeField(null=True)
    scan_tried_at = fields.DatetimeField(null=True)
    source: fields.Field[Any] = fields.JSONField(null=True)  # as StoredFile's (migration 0040)
    # When this content stopped being current: BFF_VERSION_DAYS counts from here.
    replaced_at = fields.DatetimeField(db_index=True)
    folder_id: int

    class Meta:
        table = "file_versions"
        unique_together = (("folder", "version_id"),)
        indexes = (("folder_id", "name"),)


class TrashedFile(Model):
    """A file an admin deleted, kept under `.bff-trash/{trash_id}/` until restored or purged."""

    id = fields.IntField(primary_key=True)
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="trashed_files", on_delete=fields.CASCADE
    )
    name = fields.CharField(max_length=255)
    trash_id = fields.CharField(max_length=40, unique=True)
    content_type = fields.CharField(max_length=255)
    size = fields.BigIntField()
    last_modified = fields.DatetimeField()
    is_profile_image = fields.BooleanField(default=False)
    original_rtf_name = fields.CharField(max_length=255, null=True)
    version_id = fields.CharField(max_length=40, default="")
    uploaded_by_name = fields.CharField(max_length=255, default="")
    uploaded_by_role = fields.CharField(max_length=32, default="")
    # What the content checks found in the deleted content (as StoredFile's).
    active_content = fields.TextField(default="", db_default="")
    displayable = fields.BooleanField(default=True, db_default=True)
    # The malware scan's state of this content when it was current (bff/scan/): a held one is
    # the admins' only, as the file was; a restore brings it back (migration 0029). A held or
    # unscanned one is scanned by the rescan; scan_tried_at as StoredFile's (migration 0031).
    scan_state = fields.CharField(max_length=16, default="unscanned", db_default="unscanned")
    scanned_at = fields.DatetimeField(null=True)
    scan_tried_at = fields.DatetimeField(null=True)
    source: fields.Field[Any] = fields.JSONField(null=True)  # as StoredFile's (migration 0040)
    deleted_at = fields.DatetimeField(db_index=True)
    deleted_by_name = fields.CharField(max_length=255, default="")
    deleted_by_role = fields.CharField(max_length=32, default="")
    folder_id: int

    class Meta:
        table = "trashed_files"
        indexes = (("folder_id", "name"),)


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


class PendingRemoval(Model):
    """An object a committed change left to remove (a deleted file's old place, a restored
    version's or trash entry's), recorded in that change's transaction: `storage reindex`
    never indexes it again, and the upload sweep removes it if the process died first."""

    id = fields.IntField(primary_key=True)
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="pending_removals", on_delete=fields.CASCADE
    )
    # The object's path inside the folder, segments joined by '/' (a trash entry's whole tree
    # is its two segments).
    path = fields.CharField(max_length=1024)
    created_at = fields.DatetimeField(db_index=True)
    folder_id: int

    class Meta:
        table = "pending_removals"


class FilePreview(Model):
    """The thumbnail of a file's content whose version is `version_id` (bff/files/thumbnails.py),
    stored at `.bff-previews/{name}/{version_id}.webp`, or why there is none (`reason`, a
    refusal: a damaged PDF, an image bomb). Only a file's current content has one: a row of an
    older version is stale (the listing compares version ids) and replaced by the next."""

    id = fields.IntField(primary_key=True)
    file: fields.OneToOneRelation[StoredFile] = fields.OneToOneField(
        "bff.StoredFile", related_name="preview", on_delete=fields.CASCADE
    )
    version_id = fields.CharField(max_length=40)
    ready = fields.BooleanField()
    reason = fields.CharField(max_length=255, default="")
    # A PDF's page count, known once its first page was rendered (the viewer's, at no cost).
    page_count = fields.IntField(null=True)
    created_at = fields.DatetimeField()
    file_id: int

    class Meta:
        table = "file_previews"


class FolderVisit(Model):
    """A member of staff's visit to a folder's files (POST .../visit, bff/files/visits.py), so
    the web app can mark the files added since the visit before: when the visit began and was
    last seen, and when the one before it ended (since; null: the first visit). One row per user and
    folder, gone with either. Not patient data: not audited."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="folder_visits", on_delete=fields.CASCADE
    )
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="visits", on_delete=fields.CASCADE
    )
    visited_at = fields.DatetimeField()
    since = fields.DatetimeField(null=True)
    started_at = fields.DatetimeField(null=True)  # the visit's first request (null: before 0035)
    user_id: int
    folder_id: int

    class Meta:
        table = "folder_visits"
        unique_together = (("user", "folder"),)
