"""The audit log's integrity (issue 17): the boundary between the unkeyed chain written before
the audit key existed and the keyed chain after it, and triggers refusing UPDATE and DELETE."""

from typing import Any

from tortoise import migrations
from tortoise.migrations import operations as ops

from bff.audit.guard import guard
from bff.db import dialect


async def _forward(apps: Any, schema_editor: Any) -> None:
    conn = schema_editor.client
    big = "BIGINT" if dialect(conn) == "postgres" else "INTEGER"
    # One row: the last entry hashed without the key (0: none); later entries are keyed.
    await conn.execute_query(
        "CREATE TABLE audit_legacy (id INTEGER PRIMARY KEY CHECK (id = 1), "
        f"last_id {big} NOT NULL)"
    )
    await conn.execute_query(
        "INSERT INTO audit_legacy (id, last_id) SELECT 1, COALESCE(MAX(id), 0) FROM audit_logs"
    )
    await guard(conn)


class Migration(migrations.Migration):
    dependencies = [('bff', '0006_file_versions')]

    initial = False

    operations = [ops.RunPython(_forward)]
