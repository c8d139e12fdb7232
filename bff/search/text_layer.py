"""The viewer's text layer (issue 50): a page's words with their boxes, find in the document,
and the audit of text copied from it; for the content version the viewer opened (409 once the
file has changed since), of a file the caller may see (held content answers as a missing file:
`files.service.current_content`). The viewer's opening audited the view (`file_view`), which
covers the words and finds; a copy is audited `file_copy`, a user's copies of one file's text
within a minute one entry with their count (`record_repeated`).

Find matches as search does (bff/search/query.py's syntax and tokens, case- and
accent-insensitive: bff/search/words.py), page by page, at most MAX_FIND_MATCHES; the pages'
words are read a few at a time and matched off the event loop's thread."""

from __future__ import annotations

import asyncio

from bff.audit.service import Actor, record_repeated
from bff.errors import ApiError
from bff.files.service import FILE_NOT_FOUND, current_content
from bff.files.thumbnails import content_id
from bff.files.viewer import FILE_CHANGED
from bff.search import words_repository
from bff.search.query import MAX_QUERY_LENGTH, Query, parse
from bff.search.schemas import PageWords, TextMatch, TextMatches, WordBox
from bff.search.words import MAX_FIND_MATCHES, SCALE, decoded, page_matches

NO_TEXT = "This page has no text."
FIND_EMPTY = "Type a word to find."
FIND_ONLY_EXCLUDED = "Type a word to find, not only words to leave out."
FIND_TOO_LONG = f"The text to find is too long: use at most {MAX_QUERY_LENGTH} characters."
FIND_PAGES = 16  # pages' words read from the database at a time


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


def _matched(query: Query, pages: list[tuple[int, str]], room: int) -> list[TextMatch]:
    """The matches of these pages, up to room of them (and one more, to say there are more)."""
    out: list[TextMatch] = []
    for page, stored in pages:
        for start, end in page_matches(query, decoded(stored)):
            out.append(TextMatch(page=page, start=start, end=end))
            if len(out) > room:
                return out
    return out


async def find(
    container: str, folder: str, name: str, version_id: str, q: str, actor: Actor
) -> TextMatches:
    """The document's matches of q, in page then word order, at most MAX_FIND_MATCHES."""
    query = _query(q)
    file_id, stored = await _current(container, folder, name, version_id, actor)
    matches: list[TextMatch] = []
    after = 0
    while len(matches) <= MAX_FIND_MATCHES:
        pages = await words_repository.pages_after(file_id, stored, after, FIND_PAGES)
        if not pages:
            break
        room = MAX_FIND_MATCHES - len(matches)
        matches += await asyncio.to_thread(_matched, query, pages, room)
        after = pages[-1][0]
    capped = len(matches) > MAX_FIND_MATCHES
    matches = matches[:MAX_FIND_MATCHES]
    return TextMatches(total=len(matches), capped=capped, matches=matches)


async def copied(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    page: int,
    characters: int,
    actor: Actor,
) -> None:
    """Audit text copied from a page of the file the viewer shows (`file_copy`)."""
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
