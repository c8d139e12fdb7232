"""Short-lived signed links to view one file, like S3 presigned URLs.

A link names the session that asked for it, its expiry and an HMAC over both and the file's
path, so it opens that one file, for that session only, for a few minutes: the long-lived
session token never appears in a URL, and signing out ends every link at once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from datetime import UTC, datetime

from bff.errors import ApiError
from config.settings import Settings

LINK_INVALID = "This link is invalid or has expired. Please open the file again from its folder."


def _key(settings: Settings) -> bytes:
    # A key of its own, derived from the signing secret, so a link can never pass as a token.
    return hmac.new(settings.signing_key().encode(), b"bff view link v1", hashlib.sha256).digest()


def _signature(settings: Settings, session_id: str, expires: int, path: tuple[str, ...]) -> str:
    message = "\n".join([session_id, str(expires), *path]).encode()
    digest = hmac.new(_key(settings), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def sign_link(
    settings: Settings,
    session_id: str,
    path: tuple[str, ...],
    *,
    seconds: int | None = None,
    step: int = 1,
) -> tuple[str, datetime]:
    """The `link` query value for path (container, folder, file; a purpose first for links
    that are not views, see `allow(link_purpose=...)`) and when it expires: in `seconds`
    (BFF_VIEW_LINK_SECONDS by default), rounded up to a multiple of `step` so that the links
    one session asks for within a step are the same URL (a browser's cache keeps them)."""
    lifetime = settings.view_link_seconds if seconds is None else seconds
    expires = -(-(int(time.time()) + lifetime) // step) * step
    value = f"{expires}.{session_id}.{_signature(settings, session_id, expires, path)}"
    return value, datetime.fromtimestamp(expires, UTC)


def verify_link(settings: Settings, value: str, path: tuple[str, ...]) -> str:
    """The session id a valid, unexpired link for path names; 403 otherwise."""
    parts = value.split(".")
    # isascii: "²".isdigit() is true, and int("²") raises (a 500 for a crafted link).
    if len(parts) != 3 or not (parts[0].isascii() and parts[0].isdigit()) or len(value) > 200:
        raise ApiError(403, LINK_INVALID)
    expires, session_id, signature = int(parts[0]), parts[1], parts[2]
    expected = _signature(settings, session_id, expires, path)
    if not hmac.compare_digest(signature, expected) or expires < time.time():
        raise ApiError(403, LINK_INVALID)
    return session_id
