"""The database's own refusal to change the audit log: triggers that refuse UPDATE and DELETE
(and on PostgreSQL TRUNCATE) on the audit tables, created by migration 0007.

Defence in depth only: whoever owns the database can drop them, which is why the chain is
keyed and checkpointed outside the database (bff/audit/integrity.py). Each statement is run on
its own (a trigger body holds ';', which a script splitter would cut).
"""

from __future__ import annotations

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import dialect

GUARDED_TABLES = ("audit_logs", "audit_legacy")
REFUSAL = "the audit log is append-only"

_PG_FUNCTION = (
    "CREATE OR REPLACE FUNCTION bff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS "
    f"$$ BEGIN RAISE EXCEPTION '{REFUSAL} (% refused)', TG_OP; END $$"
)


def guard_statements(db_dialect: str) -> list[str]:
    """The statements that create the triggers."""
    if db_dialect == "postgres":
        statements = [_PG_FUNCTION]
        for table in GUARDED_TABLES:
            statements += [
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION bff_audit_append_only()",
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION bff_audit_append_only()",
            ]
        return statements
    return [
        f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{REFUSAL} ({op} refused)'); END"
        for table in GUARDED_TABLES
        for op in ("UPDATE", "DELETE")
    ]


def unguard_statements(db_dialect: str) -> list[str]:
    """The statements that drop the triggers (what an attacker who owns the database can do;
    the tests do it to empty the tables and to replay such an attack)."""
    if db_dialect == "postgres":
        return [
            f"DROP TRIGGER IF EXISTS {table}_{kind} ON {table}"
            for table in GUARDED_TABLES
            for kind in ("append_only", "no_truncate")
        ]
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_{op}"
        for table in GUARDED_TABLES
        for op in ("update", "delete")
    ]


async def run_statements(conn: BaseDBAsyncClient, statements: list[str]) -> None:
    """Run each statement on conn, one at a time."""
    for statement in statements:
        await conn.execute_query(statement)


async def guard(conn: BaseDBAsyncClient) -> None:
    """Create the triggers on conn's database."""
    await run_statements(conn, guard_statements(dialect(conn)))


async def unguard(conn: BaseDBAsyncClient) -> None:
    """Drop the triggers on conn's database."""
    await run_statements(conn, unguard_statements(dialect(conn)))
