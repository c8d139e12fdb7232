"""Full-text search of the files the caller may read: the query's checks, its scope, the page
of results and its audit entry (`search`, with the query text and the number of results).

What bounds a search (`SearchGuard`, one per app): each user's searches per minute (429 with
Retry-After past them, counted in the database, so every process and instance shares the count
with or without Redis: the sign-in's durable throttle), the syntax that costs (short or
many prefixes: 400), and its time on the database (BFF_SEARCH_SECONDS, waiting for a turn
included: 503 past it, the statement stopped in the database: bff/search/repository/reading.py).
A container or folder filter the caller may not read is refused and audited `access_denied`,
as every route refuses one."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from bff.assignments.access import caller_assignments
from bff.audit.service import Actor, record_alone, record_refusal
from bff.auth.sessions import Principal
from bff.containers import repository as containers
from bff.containers.service import CONTAINER_NOT_FOUND, FOLDER_NOT_FOUND
from bff.errors import ApiError
from bff.patients.schemas import PatientDetails
from bff.search import repository
from bff.search.query import MAX_PREFIXES, MAX_QUERY_LENGTH, MIN_PREFIX, Query, parse
from bff.search.schemas import FileType, SearchQuery, SearchResult, SearchResults, Snippet
from bff.search.text_layer import CopyGuard, FindGuard
from bff.throttle import FailureCounter, Limit, wait_text
from config.settings import Settings

EMPTY_QUERY = "Type a word to search for."
ONLY_EXCLUDED = "Type a word to search for, not only words to leave out."
QUERY_TOO_LONG = f"The search is too long: use at most {MAX_QUERY_LENGTH} characters."
FOLDER_NEEDS_CONTAINER = "Choose the container of the folder to search in."
DATES_REVERSED = "The first day of the date range comes after its last day."
BAD_CURSOR = "This page of results is no longer available: search again."
PREFIX_TOO_SHORT = (
    f"Type at least {MIN_PREFIX} letters before a *: a shorter start matches too many words."
)
TOO_MANY_PREFIXES = f"Use at most {MAX_PREFIXES} words ending in * in one search."
TOO_SLOW = "The search took too long; add words or a filter"
REFUSED_LINE = "GET /api/search"  # what an access_denied entry names, as the policy's do


def too_many(seconds: int) -> str:
    """The 429 of a user past BFF_SEARCHES_PER_MINUTE."""
    return f"Too many searches: wait {wait_text(seconds)} and search again."


class SearchGuard:
    """What bounds a process's searches: each user's rate (BFF_SEARCHES_PER_MINUTE), the reads'
    own connections, turns and time budget (BFF_SEARCH_SECONDS)."""

    def __init__(self, settings: Settings) -> None:
        self.readers = repository.Readers(settings.database_url)
        # Durable: counted in the database (bff/throttle.py). Counted in each process when
        # Redis was not configured or not answering, a user had the limit once per worker.
        self.rate = FailureCounter(settings, "bff-search", 60, durable=True)
        self.per_minute = settings.searches_per_minute
        self.seconds = settings.search_seconds
        self.finds = FindGuard(settings)  # the viewer's finds (bff/search/text_layer.py)
        self.copies = CopyGuard(settings)  # the viewer's copies reported (the same)

    async def admit(self, user_id: int) -> None:
        """Count one search of the user's, or refuse it (429) past their rate."""
        _, wait = await self.rate.reserve([Limit(f"user:{user_id}", self.per_minute)])
        if wait is not None:
            raise ApiError(429, too_many(wait), {"Retry-After": str(wait)})

    async def aclose(self) -> None:
        """Close the reads' connections and Redis's (when the app stops)."""
        await self.readers.aclose()
        await self.rate.aclose()
        await self.finds.aclose()
        await self.copies.aclose()


# Which extensions each file type covers.
EXTENSIONS: dict[FileType, tuple[str, ...]] = {
    FileType.PDF: ("pdf",),
    FileType.IMAGE: ("jpg", "jpeg", "png", "tif", "tiff", "webp", "gif", "bmp", "heic"),
    FileType.WORD: ("docx", "doc", "odt"),
    FileType.TEXT: ("txt", "rtf", "md", "csv"),
}


async def _refused(actor: Actor, message: str, args: SearchQuery) -> ApiError:
    """A filter naming what the caller may not read: audited as every route's refusal."""
    await record_refusal(
        actor, 400, REFUSED_LINE, container=args.container or "", folder=args.folder or ""
    )
    return ApiError(400, message)


async def _filters(principal: Principal, actor: Actor, args: SearchQuery) -> repository.Filters:
    """The filters of a query, its container and folder checked against the caller's scope
    (one not assigned is answered like one that does not exist, and audited)."""
    container_id = folder_id = None
    if args.folder is not None and args.container is None:
        raise ApiError(400, FOLDER_NEEDS_CONTAINER)
    if args.container is not None:
        if not principal.is_admin:
            mine = await caller_assignments(principal.user_id)
            if not mine.has_container(args.container):
                raise await _refused(actor, CONTAINER_NOT_FOUND, args)
            if args.folder is not None and not mine.has_folder(args.container, args.folder):
                raise await _refused(actor, FOLDER_NOT_FOUND, args)
        container = await containers.container_named(args.container)
        if container is None:
            raise ApiError(400, CONTAINER_NOT_FOUND)
        container_id = container.id
        if args.folder is not None:
            folder = await containers.folder_named(args.container, args.folder)
            if folder is None:
                raise ApiError(400, FOLDER_NOT_FOUND)
            folder_id = folder.id
    if args.modifiedFrom and args.modifiedTo and args.modifiedFrom > args.modifiedTo:
        raise ApiError(400, DATES_REVERSED)
    return repository.Filters(
        container_id=container_id,
        folder_id=folder_id,
        extensions=EXTENSIONS[args.type] if args.type is not None else None,
        modified_from=(
            datetime.combine(args.modifiedFrom, time(), UTC) if args.modifiedFrom else None
        ),
        modified_before=(
            datetime.combine(args.modifiedTo + timedelta(days=1), time(), UTC)
            if args.modifiedTo
            else None
        ),
    )


def _check_cost(query: Query) -> None:
    """Refuse the syntax that costs: short prefixes, too many of them."""
    prefixes = query.prefixes
    if any(len(term.tokens[-1]) < MIN_PREFIX for term in prefixes):
        raise ApiError(400, PREFIX_TOO_SHORT)
    if len(prefixes) > MAX_PREFIXES:
        raise ApiError(400, TOO_MANY_PREFIXES)


async def search(
    principal: Principal, actor: Actor, args: SearchQuery, guard: SearchGuard
) -> SearchResults:
    """One page of the files the caller may read that match the query (audited)."""
    text = args.q.strip()
    if not text:
        raise ApiError(400, EMPTY_QUERY)
    if len(text) > MAX_QUERY_LENGTH:
        raise ApiError(400, QUERY_TOO_LONG)
    query = parse(text)
    if not query.terms:
        raise ApiError(400, EMPTY_QUERY)
    if not query.positive:
        raise ApiError(400, ONLY_EXCLUDED)
    _check_cost(query)
    after = None
    if args.cursor is not None:
        after = repository.Position.decode(args.cursor)
        if after is None:
            raise ApiError(400, BAD_CURSOR)
    await guard.admit(principal.user_id)
    filters = await _filters(principal, actor, args)
    try:
        async with guard.readers.reading(guard.seconds) as reading:
            found = await repository.search(reading, principal, query, filters, after, args.limit)
    except repository.TooSlow:
        raise ApiError(503, TOO_SLOW) from None
    await record_alone(
        actor,
        "search",
        container=args.container or "",
        folder=args.folder or "",
        details=f"search {text!r}, {found.total}{'+' if found.capped else ''} results"
        + (", next page" if after is not None else ""),
    )
    last = found.hits[-1] if found.hits else None
    return SearchResults(
        results=[
            SearchResult(
                containerName=hit.container,
                folderName=hit.folder,
                blobName=hit.name,
                contentType=hit.content_type,
                lastModified=hit.last_modified,
                snippet=Snippet(text=hit.snippet, highlights=[list(h) for h in hit.highlights]),
                page=hit.page,
                patient=PatientDetails.known(hit.patient),
            )
            for hit in found.hits
        ],
        nextCursor=(
            repository.Position(last.key, last.last_modified, last.file_id).encode()
            if found.more and last is not None
            else None
        ),
        total=found.total,
        totalCapped=found.capped,
    )
