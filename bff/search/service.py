"""Full-text search of the files the caller may read: the query's checks, its scope, the page
of results and its audit entry (`search`, with the query text and the number of results)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from bff.assignments.access import caller_assignments
from bff.audit.service import Actor, record_alone
from bff.auth.sessions import Principal
from bff.containers import repository as containers
from bff.containers.service import CONTAINER_NOT_FOUND, FOLDER_NOT_FOUND
from bff.errors import ApiError
from bff.search import repository
from bff.search.query import MAX_QUERY_LENGTH, parse
from bff.search.schemas import FileType, SearchQuery, SearchResult, SearchResults, Snippet

EMPTY_QUERY = "Type a word to search for."
ONLY_EXCLUDED = "Type a word to search for, not only words to leave out."
QUERY_TOO_LONG = f"The search is too long: use at most {MAX_QUERY_LENGTH} characters."
FOLDER_NEEDS_CONTAINER = "Choose the container of the folder to search in."
DATES_REVERSED = "The first day of the date range comes after its last day."
BAD_CURSOR = "This page of results is no longer available: search again."

# Which extensions each file type covers.
EXTENSIONS: dict[FileType, tuple[str, ...]] = {
    FileType.PDF: ("pdf",),
    FileType.IMAGE: ("jpg", "jpeg", "png", "tif", "tiff", "webp", "gif", "bmp", "heic"),
    FileType.WORD: ("docx", "doc", "odt"),
    FileType.TEXT: ("txt", "rtf", "md", "csv"),
}


async def _filters(principal: Principal, args: SearchQuery) -> repository.Filters:
    """The filters of a query, its container and folder checked against the caller's scope
    (one not assigned is answered like one that does not exist)."""
    container_id = folder_id = None
    if args.folder is not None and args.container is None:
        raise ApiError(400, FOLDER_NEEDS_CONTAINER)
    if args.container is not None:
        if not principal.is_admin:
            mine = await caller_assignments(principal.user_id)
            if not mine.has_container(args.container):
                raise ApiError(400, CONTAINER_NOT_FOUND)
            if args.folder is not None and not mine.has_folder(args.container, args.folder):
                raise ApiError(400, FOLDER_NOT_FOUND)
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


async def search(principal: Principal, actor: Actor, args: SearchQuery) -> SearchResults:
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
    after = None
    if args.cursor is not None:
        after = repository.Position.decode(args.cursor)
        if after is None:
            raise ApiError(400, BAD_CURSOR)
    filters = await _filters(principal, args)
    found = await repository.search(principal, query, filters, after, args.limit)
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
