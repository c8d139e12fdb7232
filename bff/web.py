"""Serves the built web app (frontend/dist, or BFF_WEB_DIR): hashed assets, and index.html for
app routes.

Text files come with the gzip and brotli copies the build writes beside them
(frontend/scripts/precompress.mjs); each request gets the one its Accept-Encoding prefers.

Paths under /api/, /socket.io/ and /openapi.json never reach these routes (the converter
refuses them), so an unknown API path stays the JSON 404 of bff.errors.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from quart import Blueprint, Response, request, send_file
from quart_schema import hide
from werkzeug.routing import BaseConverter
from werkzeug.security import safe_join

from bff.auth.policy import public
from bff.services import app_services

# The checkout's build, served unless BFF_WEB_DIR names another.
DIST = Path(__file__).resolve().parent.parent / "frontend" / "dist"
ASSETS_PREFIX = "assets/"
IMMUTABLE = "public, max-age=31536000, immutable"  # file names carry a content hash
NOT_BUILT = (
    "The web app is not built. Run `make frontend` (or `make run`), then reload this page.\n"
)


# Content-Encoding -> the suffix of the build's precompressed copy; on equal quality values
# the first is preferred (brotli is the smaller).
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


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


def _dist() -> Path:
    """The built web app this server serves: BFF_WEB_DIR, else the checkout's frontend/dist."""
    return app_services().settings.web_dir or DIST


def _read_index() -> bytes | None:
    """index.html of the build (a small file, read per request so a rebuild shows at once)."""
    index = _dist() / "index.html"
    return index.read_bytes() if index.is_file() else None


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except OSError:  # e.g. a name longer than the file system allows: no such file
        return False


def _encoded_variant(found: str) -> tuple[str, str | None]:
    """The file to send for `found` and its Content-Encoding: the precompressed copy the
    request accepts with the highest quality (brotli on a tie), else the file itself."""
    accepted = request.accept_encodings
    best: tuple[float, str, str] | None = None
    for encoding, suffix in ENCODINGS:
        quality = accepted.quality(encoding)  # 0 when absent or refused (q=0), `*` counts
        if quality > 0 and (best is None or quality > best[0]) and _is_file(found + suffix):
            best = (quality, encoding, found + suffix)
    return (found, None) if best is None else (best[2], best[1])


async def _send_built_file(found: str) -> Response:
    """A built file in the encoding the request prefers, with Range and conditional
    requests answered on that representation (each encoding has its own ETag and length)."""
    path, encoding = _encoded_variant(found)
    kind, packed = mimetypes.guess_type(found)
    # A copy asked for by its own name (x.js.gz) is opaque bytes, not the script it packs.
    mimetype = kind if kind is not None and packed is None else "application/octet-stream"
    response = await send_file(path, mimetype=mimetype, conditional=True)
    if encoding is not None:
        response.headers["Content-Encoding"] = encoding
    response.vary.add("Accept-Encoding")
    return response


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
    found = safe_join(str(_dist()), path)
    if found is not None and path != "index.html" and _is_file(found):
        response = await _send_built_file(found)
        immutable = path.startswith(ASSETS_PREFIX)
        response.headers["Cache-Control"] = IMMUTABLE if immutable else "no-cache"
        return response
    if path.startswith(ASSETS_PREFIX):
        # A missing hashed file is a real 404: an old page must not receive index.html as JS.
        return Response("Not found.\n", status=404, content_type="text/plain; charset=utf-8")
    return await index_page()
