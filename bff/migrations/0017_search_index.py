"""Full-text search (issue 32): the index over search_texts and over file and folder names
(SQLite FTS5 tables and triggers; PostgreSQL unaccent, text search configurations, a generated
tsvector and GIN indexes), as bff/search/repository/ defines it."""

from typing import Any

from tortoise import migrations
from tortoise.migrations import operations as ops

from bff.db import dialect
from bff.search.repository import index_statements


async def _forward(apps: Any, schema_editor: Any) -> None:
    conn = schema_editor.client
    for statement in index_statements(dialect(conn)):  # one at a time: trigger bodies hold ';'
        await conn.execute_query(statement)


class Migration(migrations.Migration):
    dependencies = [("bff", "0016_search_texts")]

    initial = False

    operations = [ops.RunPython(_forward)]
