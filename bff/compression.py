"""The API's larger JSON answers to a staff session go gzip-compressed when the client accepts
it: a folder of 200 files lists as about 97 KB of JSON, half a second of a phone's connection
before the folder page can draw it.

Only answers to requests carrying the session's `x-auth-token` header are compressed. A header
no other site can make a browser send means no other site can have the browser repeat a request
while varying text in it, which a compression side channel (BREACH) needs; answers authorised
by a cookie (the emergency page's grant) stay as they are. Streamed answers (file views, CSV
exports) are never touched, and answers under MIN_BYTES are not worth it.
"""

from __future__ import annotations

import gzip

from quart import Response, request
from quart.wrappers.response import DataBody

MIN_BYTES = 1024
LEVEL = 6  # zlib's default: about 1 ms for 100 KB of JSON


async def compress_json(response: Response) -> Response:
    """after_request: gzip a JSON answer to a session's request, when worth it and accepted."""
    body = response.response
    # The cheapest checks first: most answers are small (GET /api/auth/me is 300 bytes).
    if (
        not isinstance(body, DataBody)  # streamed: views, exports
        or len(body.data) < MIN_BYTES
        or "x-auth-token" not in request.headers
        or response.mimetype != "application/json"
        or "Content-Encoding" in response.headers
        or not request.accept_encodings["gzip"]  # its quality: 0 when absent or refused
    ):
        return response
    response.set_data(gzip.compress(body.data, LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response
