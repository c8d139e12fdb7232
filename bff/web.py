"""Serves the built web app (frontend/dist): hashed assets, and index.html for app routes.

Paths under /api/, /socket.io/ and /openapi.json never reach these routes (the converter
refuses them), so an unknown API path stays the JSON 404 of bff.errors.
"""

from __future__ import annotations

from pathlib import Path

from quart import Blueprint, Response, send_file
from quart_schema import hide
from werkzeug.routing import BaseConverter
from werkzeug.security import safe_join

from bff.auth.policy import public

DIST = Path(__file__).resolve().parent.parent / "frontend" / "dist"
ASSETS_PREFIX = "assets/"
IMMUTABLE = "public, max-age=31536000, immutable"  # file names carry a content hash
NOT_BUILT = (
    "The web app is not built. Run `make frontend` (or `make run`), then reload this page.\n"
)


class AppPathConverter(BaseConverter):
    """A path of the web app: anything but the server's /api, /socket.io, /openapi.json and
    /patients/admin (the SmartToken API)."""

    regex = r"(?!api(?:/|$)|socket\.io(?:/|$)|openapi\.json$|patients/admin(?:/|$))[^/].*?"
    weight = 400  # less specific than every other route
    part_isolating = False


bp = Blueprint("web", __name__)


@bp.record_once
def _register_converter(state: object) -> None:
    app = state.app  # type: ignore[attr-defined]
    app.url_map.converters["app_path"] = AppPathConverter


def _not_built() -> Response:
    return Response(NOT_BUILT, status=503, content_type="text/plain; charset=utf-8")


def _read_index() -> bytes | None:
    """index.html of the build (a small file, read per request so a rebuild shows at once)."""
    index = DIST / "index.html"
    return index.read_bytes() if index.is_file() else None


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except OSError:  # e.g. a name longer than the file system allows: no such file
        return False


async def index_page() -> Response:
    """The web app's index.html (503 text when the web app is not built)."""
    html = _read_index()
    if html is None:
        return _not_built()
    response = Response(html, content_type="text/html; charset=utf-8")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
@public
@hide
async def web_root() -> Response:
    """The web app's start page."""
    return await index_page()


@bp.get("/<app_path:path>")
@public
@hide
async def web_path(path: str) -> Response:
    """A built file of the web app, or index.html for an app route (single-page fallback)."""
    found = safe_join(str(DIST), path)
    if found is not None and path != "index.html" and _is_file(found):
        response = await send_file(found)
        immutable = path.startswith(ASSETS_PREFIX)
        response.headers["Cache-Control"] = IMMUTABLE if immutable else "no-cache"
        return response
    if path.startswith(ASSETS_PREFIX):
        # A missing hashed file is a real 404: an old page must not receive index.html as JS.
        return Response("Not found.\n", status=404, content_type="text/plain; charset=utf-8")
    return await index_page()
