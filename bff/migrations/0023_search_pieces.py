"""Search text in bounded pieces (issue 47): search_texts gets a `piece` number, one page may
have several rows (at most PIECE_CHARS each: bff/search/pieces.py), unique per file, content
version, page and piece; rows already longer are cut into pieces here.

SQLite cannot drop a table's UNIQUE constraint: the table is made again (same ids, so the FTS5
indexes that read it stay right) and its triggers and index with it. The model's new shape is
recorded for Tortoise's state by operations that leave the database alone."""

from typing import Any

from tortoise import fields, migrations
from tortoise.migrations import operations as ops
from tortoise.migrations.constraints import UniqueConstraint

from bff.db import dialect
from bff.search.pieces import PIECE_CHARS
from bff.search.repository import index_statements, text_rows

_SQLITE_TABLE = """CREATE TABLE "new_search_texts" (
    "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    "version_id" VARCHAR(40) NOT NULL,
    "page" INT NOT NULL,
    "text" TEXT NOT NULL,
    "file_id" INT NOT NULL REFERENCES "files" ("id") ON DELETE CASCADE,
    "piece" INT NOT NULL DEFAULT 1,
    CONSTRAINT "uid_search_text_file_id_pieces" UNIQUE ("file_id", "version_id", "page", "piece")
)"""


def _on_search_texts(statement: str) -> bool:
    """Migration 0017's triggers and index on search_texts (made again with the table)."""
    return statement.startswith(("CREATE TRIGGER", "CREATE INDEX")) and (
        " ON search_texts " in statement or " ON search_texts(" in statement
    )


async def _forward(apps: Any, schema_editor: Any) -> None:
    conn = schema_editor.client
    if dialect(conn) == "sqlite":
        await conn.execute_query(_SQLITE_TABLE)
        await conn.execute_query(
            'INSERT INTO "new_search_texts" (id, version_id, page, text, file_id, piece) '
            "SELECT id, version_id, page, text, file_id, 1 FROM search_texts"
        )
        await conn.execute_query("DROP TABLE search_texts")  # its triggers and index go with it
        await conn.execute_query('ALTER TABLE "new_search_texts" RENAME TO search_texts')
        for statement in index_statements("sqlite"):
            if _on_search_texts(statement):
                await conn.execute_query(statement)
    else:
        await conn.execute_query("ALTER TABLE search_texts ADD COLUMN piece INT NOT NULL DEFAULT 1")
        _, found = await conn.execute_query(
            "SELECT conname FROM pg_constraint "
            "WHERE conrelid = 'search_texts'::regclass AND contype = 'u'"
        )
        for row in found:
            await conn.execute_query(f'ALTER TABLE search_texts DROP CONSTRAINT "{row["conname"]}"')
        await conn.execute_query(
            'ALTER TABLE search_texts ADD CONSTRAINT "uid_search_text_file_id_pieces" '
            "UNIQUE (file_id, version_id, page, piece)"
        )
    # Pages longer than a piece, one at a time: cut into pieces.
    _, long_rows = await conn.execute_query(
        f"SELECT id FROM search_texts WHERE length(text) > {PIECE_CHARS} ORDER BY id"
    )
    for long_row in long_rows:
        _, found_rows = await conn.execute_query(
            "SELECT id, file_id, version_id, page, text FROM search_texts WHERE id = "
            + str(int(long_row["id"]))
        )
        row = found_rows[0]
        cut = [part for _, _, part in text_rows([row["text"]])]
        await conn.execute_query("DELETE FROM search_texts WHERE id = " + str(int(row["id"])))
        for number, part in enumerate(cut, 1):
            marks = "?, ?, ?, ?, ?" if dialect(conn) == "sqlite" else "$1, $2, $3, $4, $5"
            await conn.execute_query(
                "INSERT INTO search_texts (file_id, version_id, page, piece, text) "
                f"VALUES ({marks})",
                [row["file_id"], row["version_id"], row["page"], number, part],
            )


class _StateOnly:
    """An operation's change to Tortoise's record of the models, and nothing in the database
    (`_forward` made it)."""

    async def database_forward(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def database_backward(self, *args: Any, **kwargs: Any) -> None:
        return None


class _AddField(_StateOnly, ops.AddField):
    pass


class _RemoveConstraint(_StateOnly, ops.RemoveConstraint):
    pass


class _AddConstraint(_StateOnly, ops.AddConstraint):
    pass


class Migration(migrations.Migration):
    dependencies = [("bff", "0022_challenge_origin")]

    initial = False

    operations = [
        ops.RunPython(_forward),
        _RemoveConstraint(model_name="SearchText", name=None, fields=["file", "page"]),
        ops.AlterModelOptions(
            name="SearchText",
            options={
                "table": "search_texts",
                "app": "bff",
                "unique_together": (("file", "version_id", "page", "piece"),),
                "pk_attr": "id",
                "table_description": "One piece of a page of a file's text (page 1 for a file "
                "without pages), from the content",
            },
        ),
        _AddField(
            model_name="SearchText", name="piece", field=fields.IntField(default=1, db_default=1)
        ),
        _AddConstraint(
            model_name="SearchText",
            constraint=UniqueConstraint(fields=("file", "version_id", "page", "piece"), name=None),
        ),
    ]
