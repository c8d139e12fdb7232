"""The text extracted from each file's current content, the one source the search index is
built from (SQLite FTS5 or PostgreSQL tsvector, bff/search/repository/), and each page's words
with their boxes (the viewer's text layer: bff/search/words.py)."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from bff.files.models import StoredFile


class SearchText(Model):
    """One piece of a page of a file's text (page 1 for a file without pages), from the content
    whose version is `version_id`: a page longer than bff/search/pieces.py's PIECE_CHARS is
    split into pieces (1, 2, ...), so no search reads more than that of one row. Searched only
    while `version_id` is the file's current one."""

    id = fields.IntField(primary_key=True)
    file: fields.ForeignKeyRelation[StoredFile] = fields.ForeignKeyField(
        "bff.StoredFile", related_name="search_texts", on_delete=fields.CASCADE
    )
    version_id = fields.CharField(max_length=40)
    page = fields.IntField()
    piece = fields.IntField(default=1, db_default=1)
    text = fields.TextField()
    file_id: int

    class Meta:
        table = "search_texts"
        unique_together = (("file", "version_id", "page", "piece"),)


class PageWords(Model):
    """A page's words with their boxes (page 1 for an image), from the content whose version is
    `version_id`, as compact JSON (bff/search/words.py): the viewer's text layer, highlights and
    find. Read only while `version_id` is the file's current one and its text job is done."""

    id = fields.IntField(primary_key=True)
    file: fields.ForeignKeyRelation[StoredFile] = fields.ForeignKeyField(
        "bff.StoredFile", related_name="page_words", on_delete=fields.CASCADE
    )
    version_id = fields.CharField(max_length=40)
    page = fields.IntField()
    words = fields.TextField()
    file_id: int

    class Meta:
        table = "page_words"
        unique_together = (("file", "version_id", "page"),)
