"""Queries of the files' pictures (bff/files/thumbnails.py, the viewer's pages in
bff/files/viewer.py): a file's current content with its preview row, and the preview rows.
"""

from __future__ import annotations

from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import fetch
from bff.files.models import FilePreview
from bff.files.repository import NAMED_FILE

CURRENT_CONTENT = (
    "SELECT x.id, x.folder_id, x.content_type, x.size, x.version_id, x.last_modified, "
    "x.scan_state, "
    "p.ready AS preview_ready, p.version_id AS preview_version, p.page_count "
    + NAMED_FILE
    + "LEFT JOIN file_previews p ON p.file_id = x.id WHERE c.name = ? AND f.name = ?"
)


async def current_content(container: str, folder: str, name: str) -> dict[str, Any] | None:
    """A file's current content by names (id, folder_id, content_type, size, version_id,
    last_modified, scan_state) and its preview row's (preview_ready, preview_version,
    page_count), or None."""
    rows = await fetch(CURRENT_CONTENT, name, container, folder)
    return dict(rows[0]) if rows else None


async def previews_of(folder_id: int) -> dict[str, tuple[str, bool]]:
    """The preview rows of a folder's files: name -> (version id, ready)."""
    rows = await FilePreview.filter(file__folder_id=folder_id).values(
        "file__name", "version_id", "ready"
    )
    return {str(r["file__name"]): (str(r["version_id"]), bool(r["ready"])) for r in rows}


async def preview_rows(conn: BaseDBAsyncClient, folder_id: int) -> dict[str, FilePreview]:
    """The preview rows of a folder's files by file name (inside transaction conn)."""
    rows = (
        await FilePreview.filter(file__folder_id=folder_id).using_db(conn).prefetch_related("file")
    )
    return {row.file.name: row for row in rows}


async def put_preview(conn: BaseDBAsyncClient, file_id: int, values: dict[str, Any]) -> None:
    """Record a file's preview (replacing the one of an older content) inside conn."""
    await FilePreview.filter(file_id=file_id).using_db(conn).delete()
    await FilePreview.create(file_id=file_id, using_db=conn, **values)


async def drop_preview(conn: BaseDBAsyncClient, file_id: int) -> None:
    """Drop a file's preview row inside transaction conn."""
    await FilePreview.filter(file_id=file_id).using_db(conn).delete()


async def delete_previews(conn: BaseDBAsyncClient, ids: list[int]) -> None:
    """Drop preview rows inside transaction conn."""
    if ids:
        await FilePreview.filter(id__in=ids).using_db(conn).delete()
