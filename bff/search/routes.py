"""GET /api/search: full-text search of the files the caller may read."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from bff.auth.policy import ANY_ROLE, allow, current_principal
from bff.request_context import current_actor
from bff.search import service
from bff.search.schemas import SearchQuery, SearchResults
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
