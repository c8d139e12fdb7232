"""The text extracted from each file's current content, the one source the search index is
built from (SQLite FTS5 or PostgreSQL tsvector, bff/search/repository/)."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from bff.files.models import StoredFile


class SearchText(Model):
    """One page of a file's text (page 1 for a file without pages), from the content whose
    version is `version_id`; replaced whole when a newer content's text is extracted."""

    id = fields.IntField(primary_key=True)
    file: fields.ForeignKeyRelation[StoredFile] = fields.ForeignKeyField(
        "bff.StoredFile", related_name="search_texts", on_delete=fields.CASCADE
    )
    version_id = fields.CharField(max_length=40)
    page = fields.IntField()
    text = fields.TextField()
    file_id: int

    class Meta:
        table = "search_texts"
        unique_together = (("file", "page"),)
