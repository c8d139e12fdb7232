"""Backup and restore of a whole deployment: its database and every stored object.

Backup, while the server keeps serving:
1. copy every object (`Storage.walk`, staging excluded) into the snapshot, hashing it as it
   streams;
2. read the database at one instant T (bff/backup/database.py) and dump every table;
3. reconcile the files with the index as of T: a folder's file (or kept RTF original) the index
   did not list at T is dropped from the snapshot, one it lists that was not copied or has
   another size (uploaded or replaced during step 1) is copied again, and any other object that
   appeared meanwhile (a version, a trash entry, an audit checkpoint) is copied too. What the
   snapshot holds is then the deployment as of T;
4. write the object list, then the manifest (time, schema = applied migrations, product
   version, counts, the audit chain's head, every part's SHA-256), last.

Restore: into an empty database (migrated to the snapshot's schema) and empty storage (or,
with force, after emptying both), insert every row in one transaction, reset the sequences,
copy every object back, then verify: every part's and object's SHA-256 (objects read back from
the target), row counts, the file index against storage, the audit chain and its checkpoints
(`verify_log`) and its head against the manifest's. Later migrations of this version are
applied last.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bff.audit.repository import HEAD as AUDIT_HEAD
from bff.backup import database as db
from bff.backup.snapshot import (
    FORMAT,
    MANIFEST,
    OBJECT_LIST,
    Hashed,
    SnapshotError,
    existing_snapshot,
    gzip_lines,
    manifest_bytes,
    new_snapshot,
    one_chunk,
    read_lines,
    read_manifest,
    sorted_entries,
)
from bff.files.reindex import index_differences, indexed_objects, is_file_key
from bff.files.repository import INDEX_ROWS
from config.settings import Settings
from storage import open_storage
from storage.base import NotFound, Storage

OBJECT_PREFIX = "objects/"
COPY_CONCURRENCY = 8
RECONCILE_ROUNDS = 5
INSERT_BATCH = 500
# Tables whose rows a migration writes (the audit chain's unkeyed boundary): a freshly migrated
# database is still empty, and the snapshot's rows replace these.
SEEDED_BY_MIGRATIONS = frozenset({"audit_legacy"})

Say = Callable[[str], None]


def product_version() -> str:
    """The installed product's version."""
    try:
        return importlib.metadata.version("patient-records-bff")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def code_migrations() -> list[str]:
    """The migrations this version of the product has, oldest first ('bff.0001_initial')."""
    folder = Path(__file__).resolve().parent.parent / "migrations"
    return sorted(f"bff.{p.stem}" for p in folder.glob("[0-9][0-9][0-9][0-9]_*.py"))


async def _copy(source: Storage, key: str, target: Storage, target_key: str) -> dict[str, Any]:
    """Stream one object from source to target; its entry (key, size, sha256, content type)."""
    async with await source.open_object(key) as stream:
        hashed = Hashed(stream)
        await target.write_object(target_key, hashed, content_type=stream.content_type)
    return {
        "key": key,
        "size": hashed.size,
        "sha256": hashed.digest,
        "contentType": stream.content_type,
    }


async def _bounded(jobs: AsyncIterator[Any], work: Callable[[Any], Any], limit: int) -> None:
    """Run work(job) for every job, at most limit at once (the listing is never read ahead
    by more than limit jobs); the first failure stops it and is raised."""
    gate = asyncio.Semaphore(limit)
    running: set[asyncio.Task[Any]] = set()
    failures: list[BaseException] = []

    def finished(task: asyncio.Task[Any]) -> None:
        running.discard(task)
        gate.release()
        if not task.cancelled() and task.exception() is not None:
            failures.append(task.exception())  # type: ignore[arg-type]

    try:
        async for job in jobs:
            await gate.acquire()
            if failures:
                break
            task = asyncio.create_task(work(job))
            running.add(task)
            task.add_done_callback(finished)
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    finally:
        for task in list(running):
            task.cancel()
    if failures:
        raise failures[0]


@dataclass
class BackupReport:
    """What a backup wrote."""

    location: str
    tables: dict[str, int]
    objects: int
    object_bytes: int
    database_bytes: int

    def lines(self) -> list[str]:
        rows = sum(self.tables.values())
        return [
            f"Snapshot written: {self.location}",
            f"Database: {len(self.tables)} tables, {rows} rows ({self.database_bytes} bytes)",
            f"Objects: {self.objects} ({self.object_bytes} bytes)",
        ]


async def backup(settings: Settings, location: str, say: Say = lambda _: None) -> BackupReport:
    """Write a consistent snapshot of the deployment to location (a directory or s3:// URL)."""
    entries: dict[str, dict[str, Any]] = {}
    parts: dict[str, dict[str, Any]] = {}
    async with open_storage(settings.storage_url) as files, new_snapshot(location) as out:

        async def copy(key: str) -> None:
            entries[key] = await _copy(files, key, out, OBJECT_PREFIX + key)

        async def keys() -> AsyncIterator[str]:
            async for info in files.walk():
                yield info.name

        say("Copying stored objects ...")
        await _bounded(keys(), copy, COPY_CONCURRENCY)
        say(f"Copied {len(entries)} objects; reading the database ...")
        with tempfile.TemporaryDirectory(prefix="bff-backup-") as scratch:
            async with db.consistent_snapshot(settings.database_url, Path(scratch)) as source:
                tables = await source.tables()
                counts = {}
                for table in tables:
                    counts[table.name] = await _dump_table(source, table, out, parts)
                head = await source.query(AUDIT_HEAD) if "audit_logs" in counts else []
                index = await source.query(INDEX_ROWS)
                manifest_db = {
                    "dialect": source.dialect,
                    "migrations": await source.migrations(),
                    "sequences": await source.sequences(tables),
                    "tables": counts,
                }
        say("Reconciling stored objects with the index ...")
        await _reconcile(files, out, entries, index)
        listing = sorted_entries(entries.values())
        hashed = Hashed(gzip_lines(_aiter(listing)))
        await out.write_object(OBJECT_LIST, hashed, content_type="application/gzip")
        parts[OBJECT_LIST] = {"sha256": hashed.digest, "size": hashed.size}
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "createdAt": datetime.now(UTC).isoformat(),
            "productVersion": product_version(),
            "schema": manifest_db["migrations"],
            "database": manifest_db,
            "storage": {
                "objects": len(listing),
                "bytes": sum(int(e["size"]) for e in listing),
            },
            "auditHead": {"id": int(head[0]["id"]), "hash": head[0]["hash"]} if head else None,
            "parts": parts,
        }
        await out.write_object(MANIFEST, one_chunk(manifest_bytes(manifest)))
    return BackupReport(
        location,
        counts,
        len(listing),
        manifest["storage"]["bytes"],
        sum(p["size"] for name, p in parts.items() if name != OBJECT_LIST),
    )


async def _aiter(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


async def _dump_table(
    source: db.SourceSnapshot, table: db.Table, out: Storage, parts: dict[str, Any]
) -> int:
    count = 0

    async def lines() -> AsyncIterator[Any]:
        nonlocal count
        yield {"table": table.name, "columns": [list(c) for c in table.columns]}
        async for batch in source.rows(table):
            count += len(batch)
            for row in batch:
                yield [db.encode(v) for v in row]

    name = f"database/{table.name}.jsonl.gz"
    hashed = Hashed(gzip_lines(lines()))
    await out.write_object(name, hashed, content_type="application/gzip")
    parts[name] = {"sha256": hashed.digest, "size": hashed.size}
    return count


async def _reconcile(
    files: Storage,
    out: Storage,
    entries: dict[str, dict[str, Any]],
    index: list[dict[str, Any]],
) -> None:
    """Make the copied objects those of the index at T (see the module's docstring)."""
    wanted = indexed_objects(index)
    for key in [k for k in entries if is_file_key(k) and k not in wanted]:
        await out.delete_object(OBJECT_PREFIX + key)
        del entries[key]
    for _ in range(RECONCILE_ROUNDS):
        stale = [
            k
            for k, size in wanted.items()
            if k not in entries or (size is not None and entries[k]["size"] != size)
        ]
        async for info in files.walk():
            if not is_file_key(info.name) and info.name not in entries:
                stale.append(info.name)
        if not stale:
            return
        for key in stale:
            try:
                entries[key] = await _copy(files, key, out, OBJECT_PREFIX + key)
            except NotFound:
                entries.pop(key, None)
    raise SnapshotError(
        "Files kept changing while the backup ran (replaced or deleted again and again); "
        "run it again."
    )


@dataclass
class RestoreReport:
    """What a restore did and what its checks found."""

    tables: dict[str, int] = field(default_factory=dict)
    objects: int = 0
    object_bytes: int = 0
    audit_entries: int = 0
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        rows = sum(self.tables.values())
        lines = [
            f"Database: {len(self.tables)} tables, {rows} rows restored",
            *(f"  {name}: {count}" for name, count in sorted(self.tables.items())),
            f"Objects: {self.objects} restored ({self.object_bytes} bytes)",
            f"Audit log: {self.audit_entries} entries verified",
        ]
        if self.problems:
            return [*lines, f"RESTORE FAILED: {len(self.problems)} problems", *self.problems]
        return [*lines, "Restore verified: every checksum, the file index and the audit chain."]


async def restore(
    settings: Settings, location: str, *, force: bool = False, say: Say = lambda _: None
) -> RestoreReport:
    """Restore the snapshot at location into the configured (empty) database and storage."""
    report = RestoreReport()
    async with existing_snapshot(location) as snapshot:
        manifest = await read_manifest(snapshot)
        schema: list[str] = manifest["schema"]
        known = code_migrations()
        if schema != known[: len(schema)]:
            raise SnapshotError(
                f"The snapshot's schema ({schema[-1] if schema else 'none'}) is not one this "
                f"version ({product_version()}) knows: restore it with version "
                f"{manifest['productVersion']}."
            )
        async with open_storage(settings.storage_url) as files:
            await _prepare_target(settings, files, schema, force, say)
            from bff.db import close_db, init_db, migrate

            await init_db(settings)
            try:
                say("Restoring the database ...")
                await _load_database(snapshot, manifest, report)
                say("Restoring stored objects ...")
                await _load_objects(snapshot, manifest, files, report)
                say("Verifying ...")
                await _verify(files, manifest, report)
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
                await files.delete_object(key)
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
    await conn.execute_script("PRAGMA foreign_keys = OFF")
    for name in names:
        await conn.execute_script(f'DROP TABLE IF EXISTS "{name}"')
    await conn.execute_script("DELETE FROM sqlite_sequence")
    await conn.execute_script("PRAGMA foreign_keys = ON")


async def _part(snapshot: Storage, manifest: dict[str, Any], name: str) -> AsyncIterator[Any]:
    """The lines of one part, its SHA-256 checked at its end (SnapshotError if it differs)."""
    expected = manifest["parts"].get(name)
    if expected is None:
        raise SnapshotError(f"The manifest does not list {name}.")
    try:
        stream = await snapshot.open_object(name)
    except NotFound:
        raise SnapshotError(f"The snapshot has no {name}.") from None
    async with stream:
        hashed = Hashed(stream)
        async for line in read_lines(hashed):
            yield line
    if hashed.digest != expected["sha256"]:
        raise SnapshotError(f"{name} does not match its checksum.")


async def _load_database(
    snapshot: Storage, manifest: dict[str, Any], report: RestoreReport
) -> None:
    from bff.audit.guard import guard, unguard
    from bff.db import dialect, transaction
    from bff.db import fetch as target_query

    target = {t.name: t for t in await _target_tables(target_query)}
    counts: dict[str, int] = manifest["database"]["tables"]
    missing = sorted(set(counts) - set(target))
    if missing:
        raise SnapshotError(f"The target database has no table {missing[0]}.")
    pg = dialect() == "postgres"
    async with transaction() as conn:
        # The target is empty but for rows its migrations seeded (audit_legacy's boundary):
        # the snapshot's rows replace them, the audit triggers lifted for this one transaction.
        await unguard(conn)
        for table in reversed(db.load_order(target[n] for n in counts)):
            await conn.execute_script(f'DELETE FROM "{table.name}"')  # noqa: S608
        for table in db.load_order(target[n] for n in counts):
            families = dict(table.columns)
            rows = 0
            lines = _part(snapshot, manifest, f"database/{table.name}.jsonl.gz")
            header = await anext(lines)
            columns = [c for c, _ in header["columns"]]
            unknown = [c for c in columns if c not in families]
            if unknown:
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


async def _load_objects(
    snapshot: Storage, manifest: dict[str, Any], files: Storage, report: RestoreReport
) -> None:
    async def entries() -> AsyncIterator[dict[str, Any]]:
        async for entry in _part(snapshot, manifest, OBJECT_LIST):
            yield entry

    async def restore_one(entry: dict[str, Any]) -> None:
        key = entry["key"]
        try:
            copied = await _copy(snapshot, OBJECT_PREFIX + key, files, key)
        except NotFound:
            report.problems.append(f"object missing from the snapshot: {key}")
            return
        if copied["sha256"] != entry["sha256"] or copied["size"] != entry["size"]:
            report.problems.append(f"object does not match its checksum in the snapshot: {key}")
            return
        async with await files.open_object(key) as stream:  # read back what the target holds
            sha = hashlib.sha256()
            async for chunk in stream:
                sha.update(chunk)
        if sha.hexdigest() != entry["sha256"]:
            report.problems.append(f"object restored wrongly (checksum differs): {key}")
            return
        report.objects += 1
        report.object_bytes += int(entry["size"])

    await _bounded(entries(), restore_one, COPY_CONCURRENCY)
    expected = manifest["storage"]["objects"]
    if report.objects != expected and not report.problems:
        report.problems.append(f"{report.objects} objects restored, the manifest says {expected}")


async def _verify(files: Storage, manifest: dict[str, Any], report: RestoreReport) -> None:
    """The file index against storage, and the audit chain and its head."""
    from bff.audit.integrity import verify_log
    from bff.db import fetch as target_query

    stored = {i.name: i.size async for i in files.walk() if is_file_key(i.name)}
    report.problems += index_differences(await target_query(INDEX_ROWS), stored)
    verification = await verify_log(files)  # the chain and every checkpoint, as `audit verify`
    report.audit_entries, broken = verification.count, verification.broken
    if broken is not None:
        report.problems.append(f"audit log broken at entry {broken.entry_id}: {broken.reason}")
    head = await target_query(AUDIT_HEAD)
    found = {"id": int(head[0]["id"]), "hash": head[0]["hash"]} if head else None
    if found != manifest["auditHead"]:
        report.problems.append(
            f"audit chain head {json.dumps(found)} differs from the snapshot's "
            f"{json.dumps(manifest['auditHead'])}"
        )
