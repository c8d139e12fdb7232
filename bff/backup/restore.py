"""Restore of a whole deployment from a snapshot (bff/backup/service.py writes them).

First, before anything is written, authenticate the manifest, check the identity is
the one the snapshot is encrypted to, and check every part's SHA-256 against the manifest's.
Then into an empty database (migrated to the snapshot's schema) and empty storage (or, with
force, after emptying both), insert every row in one transaction, end every session it brought
back (everyone signs in again), reset the sequences, copy every object back, then verify:
every part's and object's SHA-256 (objects read back from the target), row counts, the file
index against storage, the audit chain and its checkpoints (`verify_log`) and its head against
the manifest's. Later migrations of this version are applied last.

bff/backup/checks.py authenticates the snapshot, restores its objects and verifies the result;
this module prepares the target database and loads the rows.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from bff.backup import database as db
from bff.backup.checks import (
    OpenedSnapshot,
    RestoreReport,
    kept_aside,
    load_objects,
    open_snapshot,
    part_lines,
    verify_restored,
)
from bff.backup.copying import (
    Say,
    code_migrations,
    part_name,
    product_version,
)
from bff.backup.snapshot import (
    OBJECT_LIST,
    SnapshotError,
    existing_snapshot,
)
from config.settings import Settings
from storage import open_storage
from storage.base import ObjectKey, Storage
from storage.local import LocalStorage

INSERT_BATCH = 500
# Tables whose rows a migration writes (the audit chain's unkeyed boundary): a freshly migrated
# database is still empty, and the snapshot's rows replace these.
SEEDED_BY_MIGRATIONS = frozenset({"audit_legacy"})
# What a restore brings back but ends at once: sign-in sessions, pending second steps and
# emergency grants (a snapshot may be days old, and whoever held one then must sign in again).
ENDED_BY_RESTORE = ("sessions", "mfa_challenges", "emergency_grants")


async def restore(
    settings: Settings,
    location: str,
    *,
    force: bool = False,
    identity_file: str | None = None,
    say: Say = lambda _: None,
) -> RestoreReport:
    """Restore the snapshot at location into the configured (empty) database and storage."""
    report = RestoreReport()
    async with existing_snapshot(location) as storage:
        try:
            snapshot = await open_snapshot(settings, storage, identity_file, say)
        except SnapshotError as exc:
            raise SnapshotError(f"{exc} Nothing was restored.") from None
        manifest = snapshot.manifest
        report.snapshot = f"{manifest['snapshotId']} of {manifest['createdAt']}"
        schema: list[str] = manifest["schema"]
        known = code_migrations()
        if schema != known[: len(schema)]:
            raise SnapshotError(
                f"The snapshot's schema ({schema[-1] if schema else 'none'}) is not one this "
                f"version ({product_version()}) knows: restore it with version "
                f"{manifest['productVersion']}."
            )
        with tempfile.TemporaryDirectory(prefix="bff-restore-") as scratch:
            async with (
                open_storage(settings.storage_url) as files,
                LocalStorage(Path(scratch)) as spool,
            ):
                await _prepare_target(settings, files, schema, force, say)
                from bff.db import close_db, init_db, migrate

                await init_db(settings)
                try:
                    say("Restoring the database ...")
                    try:
                        # Every part is checked again as it is read, before anything of it is
                        # kept: the object list (read while objects are copied, after the
                        # database's commit) is copied aside and checked first, and each
                        # table's rows are checked before the one transaction commits.
                        listing = await kept_aside(snapshot, OBJECT_LIST, spool)
                        await _load_database(snapshot, report)
                    except SnapshotError as exc:
                        raise SnapshotError(f"{exc} Nothing was restored.") from None
                    say("Restoring stored objects ...")
                    await load_objects(snapshot, listing, files, report)
                    say("Verifying ...")
                    await verify_restored(files, manifest, report)
                finally:
                    await close_db()
                await migrate(settings)  # this version's later migrations, on the restored data
    return report


async def _prepare_target(
    settings: Settings, files: Storage, schema: list[str], force: bool, say: Say
) -> None:
    """An empty database at the snapshot's schema and empty storage (emptied with force)."""
    from bff.db import close_db, init_db
    from bff.db import fetch as target_query

    await init_db(settings)
    try:
        applied = await _applied(target_query)
        tables = await _target_tables(target_query)
        filled = [
            t.name
            for t in tables
            if t.name not in SEEDED_BY_MIGRATIONS
            and await target_query(f'SELECT 1 FROM "{t.name}" LIMIT 1')  # noqa: S608
        ]
        stored = False
        async for _ in files.walk():
            stored = True
            break
        if (filled or stored or (applied and applied != schema)) and not force:
            what = "database" if filled else "storage" if stored else "database schema"
            raise SnapshotError(
                f"The target {what} is not empty (or of another schema): restore into an "
                "empty database and storage, or use --force to replace what is there."
            )
        if force and (filled or stored or applied):
            say("Emptying the target database and storage (--force) ...")
            await _drop_all(target_query)
            keys = [info.name async for info in files.walk()]
            for key in keys:
                await files.delete_object(ObjectKey.parse(key))
    finally:
        await close_db()
    if schema:
        await migrate_to(settings, schema[-1])


async def migrate_to(settings: Settings, target: str) -> None:
    """Apply migrations up to target ('bff.0005_...') only."""
    from tortoise import Tortoise
    from tortoise.migrations.api.migrate import migrate as tortoise_migrate

    from bff.db import tortoise_config

    try:
        await tortoise_migrate(config=tortoise_config(settings.database_url), target=target)
    finally:
        await Tortoise.close_connections()


async def _applied(query: db.Query) -> list[str]:
    try:
        rows = await query(
            f"SELECT app, name FROM {db.MIGRATIONS_TABLE} ORDER BY applied_at, app, name"  # noqa: S608
        )
    except Exception:  # noqa: BLE001 - no such table yet: nothing applied
        return []
    return [f"{r['app']}.{r['name']}" for r in rows]


async def _target_tables(query: db.Query) -> list[db.Table]:
    from bff.db import dialect

    if dialect() == "postgres":
        return await db.postgres_tables(query)
    return await db.sqlite_tables(query)


async def _drop_all(query: db.Query) -> None:
    from tortoise import connections

    from bff.db import dialect

    conn = connections.get("default")
    names = [t.name for t in await _target_tables(query)] + [db.MIGRATIONS_TABLE]
    if dialect() == "postgres":
        quoted = ", ".join(f'"{n}"' for n in names)
        await conn.execute_script(f"DROP TABLE IF EXISTS {quoted} CASCADE")
        return
    # Virtual tables (search's FTS5 index, derived, never in a snapshot) go first: dropping
    # one drops its shadow tables; the migrations create them again.
    derived = await query(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'"
    )
    names = [str(r["name"]) for r in derived] + names
    await conn.execute_script("PRAGMA foreign_keys = OFF")
    for name in names:
        await conn.execute_script(f'DROP TABLE IF EXISTS "{name}"')
    await conn.execute_script("DELETE FROM sqlite_sequence")
    await conn.execute_script("PRAGMA foreign_keys = ON")


async def _load_database(snapshot: OpenedSnapshot, report: RestoreReport) -> None:
    from bff.audit.guard import guard, unguard
    from bff.db import dialect, transaction
    from bff.db import fetch as target_query

    manifest = snapshot.manifest
    target = {t.name: t for t in await _target_tables(target_query)}
    counts: dict[str, int] = manifest["database"]["tables"]
    missing = sorted(set(counts) - set(target))
    if missing:
        raise SnapshotError(f"The target database has no table {missing[0]}.")
    pg = dialect() == "postgres"
    async with transaction() as conn:
        # The target is empty but for rows its migrations seeded (audit_legacy's boundary):
        # the snapshot's rows replace them, the audit triggers lifted for this one transaction.
        # One statement at a time (execute_query): sqlite3's executescript() commits whatever
        # the transaction holds first, so a part found changed later left earlier tables
        # restored and the triggers dropped.
        await unguard(conn)
        for table in reversed(db.load_order(target[n] for n in counts)):
            await conn.execute_query(f'DELETE FROM "{table.name}"')  # noqa: S608
        for table in db.load_order(target[n] for n in counts):
            families = dict(table.columns)
            rows = 0
            lines = part_lines(snapshot, part_name(table.name))
            header = await anext(lines)
            columns = [c for c, _ in header["columns"]]
            unknown = [c for c in columns if c not in families]
            if unknown:
                async for _ in lines:  # a part swapped since the check says so at its end
                    pass
                raise SnapshotError(f"The target table {table.name} has no column {unknown[0]}.")
            marks = ", ".join(f"${n}" if pg else "?" for n in range(1, len(columns) + 1))
            names = ", ".join(f'"{c}"' for c in columns)
            sql = f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})'  # noqa: S608
            batch: list[list[Any]] = []
            async for line in lines:
                batch.append(
                    [
                        db.decode(v, families[c], dialect(conn))
                        for c, v in zip(columns, line, strict=True)
                    ]
                )
                if len(batch) >= INSERT_BATCH:
                    await conn.execute_many(sql, batch)
                    rows, batch = rows + len(batch), []
            if batch:
                await conn.execute_many(sql, batch)
                rows += len(batch)
            report.tables[table.name] = rows
            if rows != counts[table.name]:
                report.problems.append(
                    f"{table.name}: {rows} rows restored, the manifest says {counts[table.name]}"
                )
            await _set_sequence(conn, table, manifest["database"]["sequences"].get(table.name, 0))
        for name in ENDED_BY_RESTORE:
            if name in target:
                ended = await target_query(f'SELECT COUNT(*) AS n FROM "{name}"', conn=conn)  # noqa: S608
                await conn.execute_query(f'DELETE FROM "{name}"')  # noqa: S608
                report.ended[name] = int(ended[0]["n"])
        await guard(conn)


async def _set_sequence(conn: Any, table: db.Table, issued: int) -> None:
    """Make the table's next id follow both the source's last issued id and the rows."""
    from bff.db import dialect
    from bff.db import fetch as target_query

    if table.serial is None:
        return
    column = f'"{table.serial}"'
    top = await target_query(f'SELECT MAX({column}) AS top FROM "{table.name}"', conn=conn)  # noqa: S608
    last = max(int(top[0]["top"] or 0), int(issued))
    if last <= 0:
        return
    if dialect(conn) == "postgres":
        await target_query(
            "SELECT setval(pg_get_serial_sequence(?, ?), ?, true)",
            f'"{table.name}"',
            table.serial,
            last,
            conn=conn,
        )
        return
    await target_query("DELETE FROM sqlite_sequence WHERE name = ?", table.name, conn=conn)
    await target_query(
        "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table.name, last, conn=conn
    )
