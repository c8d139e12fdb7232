"""`storage reindex` meeting a trash or version restore on PostgreSQL, each side held at the
moment that matters while the other runs: a restore that has put the content back and not yet
committed, or a reindex that has read the folder's rows and not yet listed its storage. Whichever
comes first, the other waits for the folder's lock; the restored file is neither dropped nor
indexed twice, and the reindex changes nothing.

PostgreSQL only: on SQLite a transaction takes the database's write lock as it begins, so the
two never interleave inside one. The moment is held by delaying a storage call of one side (the
restore's `stat` after its copy, the reindex's `list_files`) until the test lets it go; that the
other side then waits is read from PostgreSQL (pg_stat_activity), never assumed after a sleep.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

import pytest

from bff.db import fetch
from bff.files.reindex import ReindexReport, reindex
from storage.base import Storage
from tests.files.conftest import Ward

pytestmark = [
    pytest.mark.database,
    pytest.mark.skipif(
        os.environ.get("BFF_TEST_DATABASE") != "postgres",
        reason="PostgreSQL only: SQLite's transactions never interleave",
    ),
]

# Statements waiting for a lock: the held side's folder lock (what an upload's commit, a
# delete, a restore and each folder of a reindex take first, bff/files/repository.py
# lock_folder), or any row it holds.
WAITING_FOR_A_LOCK = (
    "SELECT COUNT(*) AS n FROM pg_stat_activity "
    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
)


@dataclass
class Held:
    """A storage call held before it runs: `reached` once it is, running once `go` is set."""

    reached: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)


def hold(monkeypatch: pytest.MonkeyPatch, storage: Storage, method: str, *args: str) -> Held:
    """Hold the first call of storage.method(*args) until the test lets it go."""
    held = Held()
    real = getattr(storage, method)

    async def holding(*called: Any, **kwargs: Any) -> Any:
        if called == args and not held.reached.is_set():
            held.reached.set()
            await held.go.wait()
        return await real(*called, **kwargs)

    monkeypatch.setattr(storage, method, holding)
    return held


async def waits_for_a_lock(task: asyncio.Task[Any]) -> bool:
    """True once a statement waits for a lock (the task's: nothing else runs, the app reads no
    text), False if the task ends first; asked of PostgreSQL each time the loop has run."""
    while not task.done():
        if (await fetch(WAITING_FOR_A_LOCK))[0]["n"]:
            return True
        await asyncio.sleep(0.01)
    return False


async def _json(response: Any) -> Any:
    assert response.status_code == 200, await response.get_data(as_text=True)
    return await response.get_json()


async def _restorable(ward: Ward, kind: str) -> tuple[str, bytes]:
    """scan.txt with an earlier version, deleted to the trash or not: the restore's URL and
    the content the file has once it is restored."""
    assert (await ward.upload(ward.nurse, "scan.txt", b"first")).status_code == 201
    overwrite = {"overwrite": "true"}
    response = await ward.upload(ward.nurse, "scan.txt", b"second, longer", query=overwrite)
    assert response.status_code == 201
    if kind == "trash":
        await _json(await ward.client.delete(ward.url("scan.txt"), headers=ward.admin.headers))
        return ward.url("trash", "scan.txt", "restore"), b"second, longer"
    versions = await _json(
        await ward.client.get(ward.url("scan.txt", "versions"), headers=ward.admin.headers)
    )
    [old] = [v["versionId"] for v in versions["versions"] if not v["current"]]
    return ward.url("scan.txt", "versions", old, "restore"), b"first"


@pytest.mark.parametrize("first", ["restore", "reindex"])
@pytest.mark.parametrize("kind", ["trash", "version"])
async def test_a_reindex_meeting_a_restore_neither_drops_nor_doubles_the_file(
    ward: Ward, monkeypatch: pytest.MonkeyPatch, kind: str, first: str
) -> None:
    url, restored = await _restorable(ward, kind)
    storage, where = ward.storage, (ward.container.name, ward.folder.name)

    def restoring() -> asyncio.Task[Any]:
        return asyncio.create_task(ward.client.post(url, headers=ward.admin.headers))

    if first == "restore":
        # The restore has copied the content back into the folder, inside its transaction.
        held = hold(monkeypatch, storage, "stat", *where, "scan.txt")
        restore = restoring()
        await held.reached.wait()
        reindexing = asyncio.create_task(reindex(storage))
        waited = await waits_for_a_lock(reindexing)
    else:
        # The reindex holds the folder and has read its rows, not yet its storage.
        held = hold(monkeypatch, storage, "list_files", *where)
        reindexing = asyncio.create_task(reindex(storage))
        await held.reached.wait()
        restore = restoring()
        waited = await waits_for_a_lock(restore)
    held.go.set()
    await _json(await restore)
    assert (await reindexing).lines() == ReindexReport().lines()
    # One file, with the restored content and its earlier version; nothing in the trash.
    listing = await ward.listing(ward.admin)
    assert [blob["name"] for blob in listing["blobs"]] == ["scan.txt"]
    assert await ward.stored("scan.txt") == restored
    versions = await _json(
        await ward.client.get(ward.url("scan.txt", "versions"), headers=ward.admin.headers)
    )
    assert sorted(v["current"] for v in versions["versions"]) == [False, True]
    trash = await _json(await ward.client.get(ward.url("trash"), headers=ward.admin.headers))
    assert trash["blobs"] == []
    assert (await reindex(storage)).lines() == ReindexReport().lines()
    assert waited, f"the {'reindex' if first == 'restore' else 'restore'} did not wait its turn"
