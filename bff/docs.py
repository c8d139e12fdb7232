"""Interactive API docs at /docs: Swagger UI served from the installed package, no CDN.

The page loads only same-origin scripts (the strict Content-Security-Policy forbids inline
script), so it works offline and inside hospital networks.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui_bundle
from quart import Blueprint, Response, send_from_directory
from werkzeug.exceptions import NotFound

from bff.auth.policy import public

ASSETS = Path(swagger_ui_bundle.swagger_ui_path)
HERE = Path(__file__).parent / "static"

bp = Blueprint("docs", __name__)

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Patient records API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
"""


@bp.get("/docs")
@public
async def docs_page() -> Response:
    """Interactive documentation of the API."""
    return Response(PAGE, content_type="text/html; charset=utf-8")


@bp.get("/docs/init.js")
@public
async def docs_init() -> Response:
    """Starts Swagger UI on /openapi.json."""
    return await send_from_directory(HERE, "docs-init.js")


@bp.get("/docs/assets/<path:filename>")
@public
async def docs_assets(filename: str) -> Response:
    """Swagger UI's own files."""
    try:
        return await send_from_directory(ASSETS, filename)
    except OSError:  # e.g. a name longer than the file system allows: no such file
        raise NotFound() from None
