"""GET /api/search: full-text search of the files the caller may read; and the in-app viewer's
text layer under /api/blobs/<c>/<f>/<b>/viewer/<version_id>/ (words, find, copied:
bff/search/text_layer.py), beside the viewer's other routes (bff/files/routes.py): words and
find by the viewer session's link only, as its pages."""

from __future__ import annotations

from quart import Blueprint, Response
from quart_schema import validate_querystring, validate_request, validate_response

from bff.auth.policy import ANY_ROLE, Scope, allow, current_principal
from bff.request_context import current_actor
from bff.search import service, text_layer
from bff.search.schemas import (
    CopiedText,
    FindQuery,
    PageWords,
    SearchQuery,
    SearchResults,
    TextMatches,
    WordsQuery,
)
from bff.services import app_services

bp = Blueprint("search", __name__, url_prefix="/api")


@bp.get("/search")
@allow(ANY_ROLE)  # no emergency grant: a responder reads one folder, never searches
@validate_querystring(SearchQuery)
@validate_response(SearchResults)
async def search(query_args: SearchQuery) -> SearchResults:
    """Files the caller may read whose text or name matches q, best first (audited). 429 past
    the caller's searches per minute, 503 past the search's time budget."""
    return await service.search(
        current_principal(), current_actor(), query_args, app_services().search
    )


# The viewer's text layer, for the content version the viewer opened: a document's text only
# by the link its audited opening handed out (covered by that `file_view` entry), never by a
# session's header alone (a version id is no secret: thumbnails' URLs and .../versions name it).
_VIEWER = "/blobs/<container>/<folder>/<blob>/viewer/<version_id>"
_WORDS_LINK = {
    "link": ("container", "folder", "blob", "version_id"),
    "link_purpose": text_layer.VIEWER_WORDS_LINK,
    "link_required": True,
}


@bp.get(f"{_VIEWER}/words")
@allow(ANY_ROLE, Scope.FOLDER, **_WORDS_LINK)  # type: ignore[arg-type]
@validate_querystring(WordsQuery)
@validate_response(PageWords)
async def viewer_words(
    container: str, folder: str, blob: str, version_id: str, query_args: WordsQuery
) -> PageWords:
    """A page's words with their boxes (fractions of the page, origin top-left), in reading
    order; 404 when the page has no text stored, 409 once the file has changed."""
    return await text_layer.page_words(
        container, folder, blob, version_id, query_args.page, current_actor()
    )


@bp.get(f"{_VIEWER}/find")
@allow(ANY_ROLE, Scope.FOLDER, **_WORDS_LINK)  # type: ignore[arg-type]
@validate_querystring(FindQuery)
@validate_response(TextMatches)
async def viewer_find(
    container: str, folder: str, blob: str, version_id: str, query_args: FindQuery
) -> TextMatches:
    """Where q is in the document (as search matches: words, "a phrase", prefix*), each match
    a span of a page's words, at most 1000, those found in a few seconds (partial); 409 once
    the file has changed, 429 past the caller's finds per minute, 503 when busy."""
    return await text_layer.find(
        container,
        folder,
        blob,
        version_id,
        query_args.q,
        current_actor(),
        app_services().search.finds,
    )


@bp.post(f"{_VIEWER}/copied")
@allow(ANY_ROLE, Scope.FOLDER)  # by the session: it reads nothing, it is recorded
@validate_request(CopiedText)
async def viewer_copied(
    container: str, folder: str, blob: str, version_id: str, data: CopiedText
) -> Response:
    """Text was copied from a page in the viewer: audited `file_copy` (a user's copies of the
    file's text within a minute one entry with their count); 204, 429 past the caller's 60
    copies a minute."""
    await text_layer.copied(
        container,
        folder,
        blob,
        version_id,
        data.page,
        data.characters,
        current_actor(),
        app_services().search.copies,
    )
    return Response(status=204)
