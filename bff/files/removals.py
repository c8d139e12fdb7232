"""Objects a committed change leaves to remove: a deleted file's old place, a restored
version's, a restored trash entry's tree, a replaced RTF's kept original, a replaced or deleted
content's thumbnail.

Content is copied to its new place inside the transaction that records the change and removed
from the old one only after the commit (bff/files/versions.py: a crash in between never loses
it). Between the two the old object lies in storage with no row for it, so the removal is
recorded in the same transaction (`defer`): `storage reindex` never indexes such an object
again (bff/files/reindex.py), `carry_out` removes it after the commit under the folder's lock,
and the upload sweep does it for a process that died first (`finish_stale`). An object a row
accounts for again by then (a new upload of the name, a restore) is kept.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import OperationalError

from bff.containers.models import Folder
from bff.db import CONNECTION_FAILURES, transaction
from bff.files import pending_repository, repository
from bff.files.names import ORIGINAL_SUFFIX, RTF_ORIGINAL_PREFIX, folder_key
from storage.base import PREVIEWS_DIR, TRASH_DIR, VERSIONS_DIR, ObjectKey, Storage, StorageError

log = logging.getLogger(__name__)


# A removal is recorded by the object's path inside its folder (ObjectKey.inner): a tuple of
# segments here, joined by '/' in its row.
InnerPath = tuple[str, ...]


async def defer(conn: BaseDBAsyncClient, folder_id: int, keys: list[ObjectKey]) -> list[int]:
    """Inside the transaction that makes them garbage: record objects of a folder to remove
    (a trash entry's `.bff-trash/{id}` stands for the entry's whole tree); their ids."""
    if not keys:
        return []
    return await pending_repository.add_removals(
        conn, folder_id, ["/".join(key.inner) for key in keys], datetime.now(UTC)
    )


async def pending_paths(conn: BaseDBAsyncClient, folder_id: int) -> set[InnerPath]:
    """The objects of a folder recorded for removal, by their path inside it (inside
    transaction conn)."""
    rows = await pending_repository.removals_where(conn, folder_id=folder_id)
    return {tuple(row.path.split("/")) for row in rows}


async def _still_needed(conn: BaseDBAsyncClient, folder_id: int, path: InnerPath) -> bool:
    """Whether a row accounts for the object now (it was put back since it was recorded)."""
    if len(path) == 1:
        name = path[0]
        original_of = (
            name.removeprefix(RTF_ORIGINAL_PREFIX) if name.startswith(RTF_ORIGINAL_PREFIX) else None
        )
        row = await pending_repository.indexed_row_for(conn, folder_id, name, original_of)
        return row is not None
    if path[0] == VERSIONS_DIR and len(path) == 3:
        version_id = path[2].removesuffix(ORIGINAL_SUFFIX)
        return await pending_repository.version_exists(conn, folder_id, version_id)
    if path[0] == TRASH_DIR and len(path) == 2:
        return await pending_repository.trash_entry_exists(conn, folder_id, path[1])
    if path[0] == PREVIEWS_DIR and len(path) == 3:  # a thumbnail: while its content is current
        version_id = path[2].removesuffix(".webp")
        return await pending_repository.current_version_is(conn, folder_id, path[1], version_id)
    return False


# What a removal after its change's commit may meet: the change stands whatever happens.
AFTER_COMMIT_FAILURES: tuple[type[Exception], ...] = (
    StorageError,
    OSError,
    OperationalError,
    *CONNECTION_FAILURES,
)


async def carry_out(storage: Storage, folder: Folder, ids: list[int] | None = None) -> int:
    """After the commit: remove a folder's recorded objects (ids, or every one), under the
    folder's lock, keeping any a row accounts for again; then forget them. Best effort: what
    storage refuses stays recorded for the sweep. Returns how many objects went."""
    if ids == []:
        return 0
    folder_at = folder_key(folder)
    removed = 0
    try:
        async with transaction() as conn:
            await repository.lock_folder(conn, folder.id)
            where = {"folder_id": folder.id} if ids is None else {"id__in": ids}
            rows = await pending_repository.removals_where(conn, **where)
            for row in rows:
                path = tuple(row.path.split("/"))
                if await _still_needed(conn, folder.id, path):
                    continue
                if path[0] == TRASH_DIR and len(path) == 2:
                    removed += await storage.delete_tree(folder_at.child(*path))
                elif await storage.delete_object(folder_at.child(*path)):
                    removed += 1
            await pending_repository.delete_removals(conn, [row.id for row in rows])
    except AFTER_COMMIT_FAILURES:
        # After its commit: the change stands whatever happens here (a database blip, SQLite
        # locked by `storage reindex`); the recorded removals wait for the sweep.
        log.warning("Could not remove what a change left behind; the sweep will.")
    return removed


async def finish_stale(storage: Storage, recorded_before: datetime) -> int:
    """What processes that died after their commit left to remove (the upload sweep calls
    this under its lease); how many objects went."""
    removed = 0
    for folder_id in await pending_repository.stale_removal_folders(recorded_before):
        removed += await carry_out(storage, await repository.folder_by_id(folder_id))
    return removed
