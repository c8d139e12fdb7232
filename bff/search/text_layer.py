"""The viewer's text layer (issue 50): a page's words with their boxes, find in the document,
and the audit of text copied from it; for the content version the viewer opened (409 once the
file has changed since), of a file the caller may see (held content answers as a missing file:
`files.service.current_content`). The viewer's opening audited the view (`file_view`), which
covers the words and finds; a copy is audited `file_copy`, a user's copies of one file's text
within a minute one entry with their count (`record_repeated`), from whatever the viewer shows
as text (a page's text layer, a text or RTF file, a DOCX's HTML); each user's reports at most
COPIES_PER_MINUTE (`CopyGuard`: 429 with Retry-After past it, before any read or write of the
database).

Words and find answer only under a link of the viewer session the audited opening handed out
(`links`, purpose VIEWER_WORDS_LINK, signed like the viewer's others: bff/files/viewer.py), so
every read of a document's text is covered by a `file_view` entry; a session's header alone is
refused (404), as for the pages. A copy is only recorded, and is reported by the session.

Find matches as search does (bff/search/query.py's syntax and tokens, case- and
accent-insensitive: bff/search/words.py), page by page, at most MAX_FIND_MATCHES; the pages'
words are read a few at a time and matched in a worker process of the finds' own, at low
priority (bff/workers.py: the server's process never matches, so a find holds neither its GIL
nor its core). What bounds it (`FindGuard`, one per app): each user's finds per minute (429
with Retry-After), at most
FINDS_AT_ONCE at once per process (503 with Retry-After past FIND_WAIT_SECONDS waiting for a
turn), and each within FIND_SECONDS, checked between pages and as a page is matched: past it
the matches found so far are answered, `partial`."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from urllib.parse import quote

from bff.audit.service import Actor, record_repeated
from bff.auth.links import sign_link
from bff.errors import ApiError
from bff.files.service import FILE_NOT_FOUND, current_content
from bff.files.thumbnails import MB, content_id
from bff.files.viewer import FILE_CHANGED
from bff.search import words_repository
from bff.search.query import MAX_QUERY_LENGTH, Query, parse
from bff.search.schemas import PageWords, TextMatch, TextMatches, WordBox
from bff.search.words import MAX_FIND_MATCHES, SCALE, decoded, document_matches
from bff.throttle import FailureCounter, Limit, wait_text
from bff.workers import WorkerFailed, WorkerPool, WorkerTimeout
from config.settings import Settings

log = logging.getLogger(__name__)

NO_TEXT = "This page has no text."
FIND_EMPTY = "Type a word to find."
FIND_ONLY_EXCLUDED = "Type a word to find, not only words to leave out."
FIND_TOO_LONG = f"The text to find is too long: use at most {MAX_QUERY_LENGTH} characters."
FIND_PAGES = 16  # pages' words read from the database at a time
FIND_SECONDS = 3.0  # a find's time, past which it answers the matches found so far (partial)
FINDS_AT_ONCE = 2  # finds matching at once in a process, each in a low-priority worker process
FIND_WORKER_SLACK = 2.0  # a find's worker killed this long after its deadline (it stops itself)
FIND_WAIT_SECONDS = 2.0  # how long a find waits for a turn before the 503
FINDS_PER_MINUTE = 30  # each user's finds, in this process and (when configured) Redis
COPIES_PER_MINUTE = 60  # each user's copies reported, counted as the finds are
FIND_BUSY = "The server is busy finding text in other files. Please try again in a moment."
FIND_FAILED = "The server could not search this document's text. Please try again in a moment."
FIND_MEMORY_MB = 512  # a find's worker's address space (a file's words are 16 MB at most)
FIND_BUSY_RETRY_SECONDS = "5"
# The purpose signed into the text layer's links (words and find): a link of the viewer's
# pages or content never opens them, nor theirs these.
VIEWER_WORDS_LINK = ".bff-viewer-words"


def too_many_finds(seconds: int) -> str:
    """The 429 of a user past FINDS_PER_MINUTE."""
    return f"Too many finds in a short time: wait {wait_text(seconds)} and find again."


def too_many_copies(seconds: int) -> str:
    """The 429 of a user past COPIES_PER_MINUTE."""
    return f"Too many copies in a short time: wait {wait_text(seconds)} before copying more text."


async def _admit(
    rate: FailureCounter, user_id: int | None, per_minute: int, refused: Callable[[int], str]
) -> None:
    """Count one request of the user's under rate, or refuse it (429, `refused(wait)` its
    message) past per_minute."""
    _, wait = await rate.reserve([Limit(f"user:{user_id}", per_minute)])
    if wait is not None:
        raise ApiError(429, refused(wait), {"Retry-After": str(wait)})


class CopyGuard:
    """What bounds the copies reported (each one a write of the database, however the audit
    folds them): each user's COPIES_PER_MINUTE, a load limit counted as the finds' are."""

    def __init__(self, settings: Settings) -> None:
        self.rate = FailureCounter(settings, "bff-copy", 60)
        self.per_minute = COPIES_PER_MINUTE

    async def admit(self, user_id: int | None) -> None:
        """Count one copy of the user's, or refuse it (429) past their rate."""
        await _admit(self.rate, user_id, self.per_minute, too_many_copies)

    async def aclose(self) -> None:
        """Close Redis's connection (when the app stops)."""
        await self.rate.aclose()


class FindGuard:
    """What bounds a process's finds: each user's rate (FINDS_PER_MINUTE, a load limit: this
    process's count and Redis's when configured: bff/throttle.py) and FINDS_AT_ONCE turns."""

    def __init__(self, settings: Settings) -> None:
        self.rate = FailureCounter(settings, "bff-find", 60)
        self.per_minute = FINDS_PER_MINUTE
        self._turns: asyncio.Semaphore | None = None
        # The matching's own processes, one a turn, never the server's (a find holding the
        # event loop's GIL slowed every other request: a sign-in 0.12 s -> 1.6 s) nor the
        # conversion pool's (a user's finds back to back would keep the viewer's pages waiting).
        self.workers = WorkerPool(
            FINDS_AT_ONCE,
            0,
            FIND_SECONDS + FIND_WORKER_SLACK,
            preload=("bff.search.words",),
            memory=FIND_MEMORY_MB * MB,
        )

    async def admit(self, user_id: int | None) -> None:
        """Count one find of the user's, or refuse it (429) past their rate."""
        await _admit(self.rate, user_id, self.per_minute, too_many_finds)

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """One of the process's FINDS_AT_ONCE turns, waited for FIND_WAIT_SECONDS at most
        (503 with Retry-After past them)."""
        if self._turns is None:
            self._turns = asyncio.Semaphore(FINDS_AT_ONCE)
        turns = self._turns
        try:
            async with asyncio.timeout(FIND_WAIT_SECONDS):
                await turns.acquire()
        except TimeoutError:
            raise ApiError(503, FIND_BUSY, {"Retry-After": FIND_BUSY_RETRY_SECONDS}) from None
        try:
            yield
        finally:
            turns.release()

    async def matched(
        self, query: Query, pages: list[tuple[int, str]], room: int, deadline: float
    ) -> tuple[list[tuple[int, int, int]], bool]:
        """words.document_matches in a worker of the finds' own (within a turn): a worker that
        outlived the deadline by FIND_WORKER_SLACK ends the find as it stands (`partial`); one
        that ran out of memory, died or did not start fails it (503, logged: never taken for a
        long document), its worker replaced."""
        try:
            return await self.workers.run(document_matches, query, pages, room, deadline)
        except WorkerTimeout:
            return [], True
        except WorkerFailed as exc:
            log.warning("a find's worker failed: %s", exc)
            raise ApiError(503, FIND_FAILED, {"Retry-After": FIND_BUSY_RETRY_SECONDS}) from None

    async def aclose(self) -> None:
        """Close Redis's connection and end the finds' workers (when the app stops)."""
        await self.rate.aclose()
        await self.workers.close()


def links(
    settings: Settings, session_id: str, container: str, folder: str, name: str, version_id: str
) -> tuple[str, str]:
    """The text layer's links of a viewer session the opening audited (bff/files/routes.py
    open_viewer), as long as its others: the words' (a template: {page}) and find's (the app
    appends &q=)."""
    link, _ = sign_link(
        settings,
        session_id,
        (VIEWER_WORDS_LINK, container, folder, name, version_id),
        seconds=settings.preview_link_seconds,
    )
    where = "/".join(quote(part, safe="") for part in (container, folder, name))
    base = f"/api/blobs/{where}/viewer/{quote(version_id, safe='')}"
    return f"{base}/words?page={{page}}&link={link}", f"{base}/find?link={link}"


async def _current(
    container: str, folder: str, name: str, version_id: str, actor: Actor
) -> tuple[int, str]:
    """The file's id and its current content's version as stored, if actor may see it (404) and
    it is still the version the viewer opened (409)."""
    found = await current_content(container, folder, name, actor)
    if found is None:
        raise ApiError(404, FILE_NOT_FOUND)
    stored = str(found["version_id"])
    if content_id(stored) != version_id:
        raise ApiError(409, FILE_CHANGED)
    return int(found["id"]), stored


async def has_text_layer(file_id: int, version_id: str) -> bool:
    """Whether words are stored for the file's content `version_id` (as stored, '' for a file
    indexed before versions): ViewerOpen.textLayer."""
    return await words_repository.has_words(file_id, version_id)


async def page_words(
    container: str, folder: str, name: str, version_id: str, page: int, actor: Actor
) -> PageWords:
    """A page's words with their boxes (fractions of the page), in reading order; 404 when the
    page has none stored."""
    file_id, stored = await _current(container, folder, name, version_id, actor)
    found = await words_repository.page_words(file_id, stored, page)
    if found is None:
        raise ApiError(404, NO_TEXT)
    words = await asyncio.to_thread(decoded, found)
    return PageWords(
        page=page,
        words=[
            WordBox(text=text, box=[x0 / SCALE, y0 / SCALE, x1 / SCALE, y1 / SCALE])
            for text, x0, y0, x1, y1 in words
        ],
    )


def _query(q: str) -> Query:
    """What to find, checked as search checks its box (400 with the reason)."""
    if len(q) > MAX_QUERY_LENGTH:
        raise ApiError(400, FIND_TOO_LONG)
    query = parse(q)
    if not query.terms:
        raise ApiError(400, FIND_EMPTY)
    if not query.positive:
        raise ApiError(400, FIND_ONLY_EXCLUDED)
    return query


async def find(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    q: str,
    actor: Actor,
    guard: FindGuard,
) -> TextMatches:
    """The document's matches of q, in page then word order, at most MAX_FIND_MATCHES; those
    found within FIND_SECONDS (`partial`) when the document takes longer."""
    query = _query(q)
    await guard.admit(actor.user_id)
    file_id, stored = await _current(container, folder, name, version_id, actor)
    matches: list[TextMatch] = []
    partial = False
    after = 0
    async with guard.turn():
        deadline = time.monotonic() + FIND_SECONDS
        while len(matches) <= MAX_FIND_MATCHES and not partial:
            if time.monotonic() >= deadline:
                partial = True
                break
            pages = await words_repository.pages_after(file_id, stored, after, FIND_PAGES)
            if not pages:
                break
            room = MAX_FIND_MATCHES - len(matches)
            found, partial = await guard.matched(query, pages, room, deadline)
            matches += [TextMatch(page=page, start=start, end=end) for page, start, end in found]
            after = pages[-1][0]
    capped = len(matches) > MAX_FIND_MATCHES
    matches = matches[:MAX_FIND_MATCHES]
    return TextMatches(total=len(matches), capped=capped, partial=partial, matches=matches)


async def copied(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    page: int,
    characters: int,
    actor: Actor,
    guard: CopyGuard,
) -> None:
    """Audit text copied from a page of the file the viewer shows (`file_copy`); 429 past the
    user's COPIES_PER_MINUTE."""
    await guard.admit(actor.user_id)
    await _current(container, folder, name, version_id, actor)
    await record_repeated(
        actor,
        "file_copy",
        reason="copied",
        details=f"copied text from page {page} ({characters} characters)",
        container=container,
        folder=folder,
        blob=name,
        counted_as="copied text again",
        same_file=True,
    )
