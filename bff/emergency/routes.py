"""The SmartToken verification address and the responder's emergency view."""

from __future__ import annotations

from quart import Blueprint, Response, request
from quart_schema import hide, validate_response

from bff.auth.policy import public
from bff.emergency import service
from bff.emergency.grants import (
    COOKIE,
    NEUTRAL,
    SECURE_COOKIE,
    EmergencyAccess,
    active_grant,
    cookie_name,
)
from bff.emergency.schemas import EmergencyStatus, EmergencyView
from bff.errors import ApiError
from bff.request_context import client_address
from bff.services import app_services
from bff.tokens.signing import SIGNATURE, SUN_MAC, TOKEN_ID
from bff.web import index_page

bp = Blueprint("emergency", __name__)

EMERGENCY_PAGE = "/emergency"


@bp.get("/patients/verify/<token_id>")
@public
@hide
async def verify(token_id: str) -> Response:
    """Scanned from a SmartToken: open an emergency grant and go to the emergency page.

    A static link is `{token id}?s={signature in four groups of eight}`; an NTAG 424 DNA tap
    is `{encrypted PICCData, 32 hex}?s={truncated SDMMAC, 16 hex}`, good once.

    Malformed links get the web app's verification page, which explains what is wrong.
    Whatever else fails, the responder lands on the same neutral page.
    """
    signature = request.args.get("s", "")
    if not TOKEN_ID.fullmatch(token_id):
        return await index_page()
    services = app_services()
    settings = services.settings
    if SIGNATURE.fullmatch(signature):
        grant = await service.verify(
            token_id, signature, client_address(), settings, services.verify_throttle
        )
    elif SUN_MAC.fullmatch(signature):  # an NTAG 424 DNA tap: the path is its PICCData
        grant = await service.verify_sun(
            token_id, signature, client_address(), settings, services.verify_throttle
        )
    else:
        return await index_page()
    response = Response("", status=303, headers={"Location": EMERGENCY_PAGE})
    if grant is None:
        _forget_grant(response)
    else:
        response.set_cookie(
            cookie_name(settings),
            grant.id,
            max_age=settings.emergency_minutes * 60,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=settings.https,
        )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"  # the signed link never leaks onwards
    return response


def _forget_grant(response: Response) -> None:
    """Remove the grant cookie under either name (a plain one left from before https too)."""
    https = app_services().settings.https
    for name in (SECURE_COOKIE, COOKIE) if https else (COOKIE,):
        response.delete_cookie(name, path="/", secure=name == SECURE_COOKIE, httponly=True)


def _grant_id() -> str | None:
    return request.cookies.get(cookie_name(app_services().settings))


@bp.get(EMERGENCY_PAGE)
@public
@hide
async def emergency_page() -> Response:
    """The web app's emergency page. With a live grant whose patient has a photo, a preload
    Link lets the browser fetch the photo while the app's scripts load, instead of after them
    and the grant's details (the photo is the page's largest paint)."""
    response = await index_page()
    access = await active_grant(_grant_id())
    photo = None
    if access is not None:
        photo = await service.photo_path(access, access.actor(client_address()))
    if response.status_code == 200 and photo is not None:
        response.headers["Link"] = f"<{photo}>; rel=preload; as=image; fetchpriority=high"
        response.headers["Cache-Control"] = "no-store"  # it names the grant's folder
    return response


async def _access() -> EmergencyAccess:
    access = await active_grant(_grant_id())
    if access is None:
        raise ApiError(404, NEUTRAL)
    return access


@bp.get("/api/emergency/session")
@public
@validate_response(EmergencyView)
async def emergency_view() -> EmergencyView:
    """The patient a live emergency grant opens: name, date of birth, files, expiry."""
    access = await _access()
    return await service.view(access, access.actor(client_address()))


@bp.get("/api/emergency/session/status")
@public
@validate_response(EmergencyStatus)
async def emergency_status() -> tuple[EmergencyStatus, int, dict[str, str]]:
    """Whether the caller's own grant is still open (the page polls it to end at once when an
    admin disconnects the token); nothing else, and not audited: it reveals no patient data."""
    await _access()
    return EmergencyStatus(open=True), 200, {"Cache-Control": "no-store"}


@bp.delete("/api/emergency/session")
@public
async def end_emergency() -> Response:
    """End emergency access now."""
    access = await _access()
    await service.end(access, access.actor(client_address()))
    response = Response('{"message":"Emergency access ended."}', content_type="application/json")
    _forget_grant(response)
    return response
