"""The intake's "never taken twice" holds only while an item waits in the inbox (review #6): a
document filed or deleted (by mistake, say) comes in again when the lab re-sends it. The sha256
is no longer unique over every item; a partial unique index keeps one new item per content, so
two processes taking the same bytes at once still make one item (the loser's unique violation
answers the winner's item: bff/intake/service.py `take_in`).

Done in SQL of its own: Tortoise's conditional UniqueConstraint is PostgreSQL-only, and its
SQLite AlterField rebuilds the table without its other indexes (status, received_at). The state
says sha256 is a plain CharField (models.py should say so too). The partial index is not in
Tortoise's state: a later migration that makes Tortoise rebuild intake_items on SQLite (an
AlterField, a RemoveField) must create it again."""

from typing import Any

from tortoise import fields, migrations
from tortoise.migrations import operations as ops

INDEX = "intake_items_sha256_new"
PARTIAL = f"CREATE UNIQUE INDEX {INDEX} ON intake_items (sha256) WHERE status = 'new'"
UNIQUE_COLUMN = '"sha256" VARCHAR(64) NOT NULL UNIQUE'
PLAIN_COLUMN = '"sha256" VARCHAR(64) NOT NULL'
PG_UNIQUE = """
SELECT c.conname AS name FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
WHERE c.conrelid = 'intake_items'::regclass AND c.contype = 'u' AND a.attname = 'sha256'
  AND array_length(c.conkey, 1) = 1
"""


async def _sqlite(client: Any) -> None:
    """SQLite cannot drop a column's UNIQUE: the table is made again, its indexes with it."""
    [table] = await client.execute_query_dict(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'intake_items'"
    )
    sql: str = table["sql"]
    if sql.count(UNIQUE_COLUMN) != 1:
        raise RuntimeError("intake_items.sha256 is not the unique column 0037 made")
    indexes = await client.execute_query_dict(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'intake_items' "
        "AND sql IS NOT NULL"
    )
    made = sql.replace(UNIQUE_COLUMN, PLAIN_COLUMN).replace(
        'CREATE TABLE "intake_items"', 'CREATE TABLE "intake_items_0039"', 1
    )
    await client.execute_query(made)
    await client.execute_query("INSERT INTO intake_items_0039 SELECT * FROM intake_items")
    await client.execute_query("DROP TABLE intake_items")
    await client.execute_query("ALTER TABLE intake_items_0039 RENAME TO intake_items")
    for index in indexes:
        await client.execute_query(index["sql"])


async def _postgres(client: Any) -> None:
    for row in await client.execute_query_dict(PG_UNIQUE):
        await client.execute_query(f'ALTER TABLE intake_items DROP CONSTRAINT "{row["name"]}"')


class _OneNewPerContent(ops.AlterField):
    """sha256 no longer unique (the state as AlterField's), one new item per content (SQL)."""

    async def database_forward(
        self, app_label: str, old_state: Any, new_state: Any, state_editor: Any = None
    ) -> None:
        if not state_editor:
            return
        client = state_editor.client
        if client.capabilities.dialect == "sqlite":
            await _sqlite(client)
        else:
            await _postgres(client)
        await client.execute_query(PARTIAL)

    async def database_backward(
        self, app_label: str, old_state: Any, new_state: Any, state_editor: Any = None
    ) -> None:
        raise NotImplementedError("0039 is not undone: items may share content by now")


class Migration(migrations.Migration):
    dependencies = [("bff", "0038_intake_routing")]

    initial = False

    operations = [
        _OneNewPerContent(
            model_name="IntakeItem", name="sha256", field=fields.CharField(max_length=64)
        ),
    ]
