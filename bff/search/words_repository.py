"""Every query of `page_words`, each page's words with their boxes (bff/search/words.py): written
and removed by the text job (bff/search/jobs.py) a bounded piece at a time, read by the viewer's
text layer and find (bff/search/text_layer.py) only while they are of the file's current content
and its text job is done (so never half written)."""

from __future__ import annotations

from collections.abc import Sequence

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import fetch
from bff.jobs.models import DONE, KIND_TEXT

# Rows of the file's current content whose text job is done: what may be read.
_READY = (
    "FROM page_words w JOIN file_jobs j ON j.file_id = w.file_id AND j.kind = ? "
    "AND j.version_id = w.version_id AND j.state = ? "
    "WHERE w.file_id = ? AND w.version_id = ?"
)


async def insert_words(
    file_id: int,
    version_id: str,
    rows: Sequence[tuple[int, str]],
    client_conn: BaseDBAsyncClient | None = None,
) -> None:
    """Add (page, words) rows of the file's content `version_id`."""
    for page, words in rows:
        await fetch(
            "INSERT INTO page_words (file_id, version_id, page, words) VALUES (?, ?, ?, ?)",
            file_id,
            version_id,
            page,
            words,
            conn=client_conn,
        )


async def remove_words(
    file_id: int, limit: int | None = None, client_conn: BaseDBAsyncClient | None = None
) -> int:
    """Forget the file's words, or only `limit` of its rows (a bounded piece of work): how many
    rows went."""
    before = await fetch(
        "SELECT COUNT(*) AS n FROM page_words WHERE file_id = ?", file_id, conn=client_conn
    )
    if limit is None:
        await fetch("DELETE FROM page_words WHERE file_id = ?", file_id, conn=client_conn)
        return int(before[0]["n"])
    await fetch(
        "DELETE FROM page_words WHERE id IN (SELECT id FROM page_words WHERE file_id = ? LIMIT ?)",
        file_id,
        limit,
        conn=client_conn,
    )
    return min(int(before[0]["n"]), limit)


async def has_words(file_id: int, version_id: str) -> bool:
    """Whether words are stored (and readable) for the file's content `version_id`."""
    rows = await fetch(f"SELECT 1 AS found {_READY} LIMIT 1", KIND_TEXT, DONE, file_id, version_id)
    return bool(rows)


async def page_words(file_id: int, version_id: str, page: int) -> str | None:
    """A page's stored words (JSON) of the file's content `version_id`, or None."""
    rows = await fetch(
        f"SELECT w.words AS words {_READY} AND w.page = ?",
        KIND_TEXT,
        DONE,
        file_id,
        version_id,
        page,
    )
    return str(rows[0]["words"]) if rows else None


async def pages_after(
    file_id: int, version_id: str, after: int, limit: int
) -> list[tuple[int, str]]:
    """Up to `limit` pages' words of the content `version_id` after page `after`, by page."""
    rows = await fetch(
        f"SELECT w.page AS page, w.words AS words {_READY} AND w.page > ? ORDER BY w.page LIMIT ?",
        KIND_TEXT,
        DONE,
        file_id,
        version_id,
        after,
        limit,
    )
    return [(int(row["page"]), str(row["words"])) for row in rows]
