"""Single sign-on endpoints under /api/auth/oidc, and an admin's unlink of a user."""

from __future__ import annotations

from urllib.parse import urlencode

from quart import Blueprint, Response, request
from quart_schema import validate_request, validate_response

from bff.auth.policy import ADMIN, allow, public
from bff.auth.schemas import LoginResult
from bff.errors import ApiError
from bff.oidc import service
from bff.oidc.provider import Provider
from bff.oidc.schemas import BackchannelResponse, CompleteRequest, SsoConfig
from bff.request_context import client_address, current_actor
from bff.services import app_services
from bff.users.schemas import Message

bp = Blueprint("oidc", __name__, url_prefix="/api")

COOKIE = "bff_oidc"
COOKIE_PATH = "/api/auth/oidc"
MAX_LOGOUT_TOKEN = 16 * 1024


def _provider() -> Provider:
    provider = app_services().oidc
    if provider is None:
        raise ApiError(404, service.NOT_CONFIGURED)
    return provider


def _redirect(location: str) -> Response:
    response = Response("", status=303, headers={"Location": location})
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _to_login(reason: str) -> Response:
    """Back to the login page, which shows the reason's message."""
    response = _redirect("/login?" + urlencode({"sso": reason}))
    response.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True)
    return response


@bp.get("/auth/oidc/config")
@public
@validate_response(SsoConfig)
async def sso_config() -> SsoConfig:
    """Whether single sign-on is configured, its button's name, and who may still use a
    password (the login page)."""
    settings = app_services().settings
    return SsoConfig(
        enabled=settings.oidc_enabled,
        displayName=settings.oidc_display_name,
        localPasswords=settings.oidc_local_passwords if settings.oidc_enabled else "all",
    )


@bp.get("/auth/oidc/start")
@public
async def sso_start() -> Response:
    """Send the browser to the identity provider (authorization code flow with PKCE)."""
    services = app_services()
    provider = _provider()
    try:
        started = await service.start(services.settings, provider)
    except service.Refused as refused:
        return _to_login(refused.reason)
    response = _redirect(started.url)
    response.set_cookie(
        COOKIE,
        started.cookie,
        max_age=service.STATE_SECONDS,
        path=COOKIE_PATH,
        httponly=True,
        samesite="Lax",
        secure=services.settings.https,
    )
    return response


@bp.get("/auth/oidc/callback")
@public
async def sso_callback() -> Response:
    """The provider's answer: checked in full, then the web app's /login takes the sign-in up
    with a one-time code in the URL's fragment (never sent to a server, so never logged)."""
    services = app_services()
    provider = _provider()
    params = {key: request.args.get(key, "")[:2048] for key in ("code", "state", "error")}
    try:
        code = await service.callback(
            params,
            request.cookies.get(COOKIE),
            client_address(),
            services.settings,
            provider,
            services.login_throttle,
        )
    except service.Refused as refused:
        return _to_login(refused.reason)
    response = _redirect("/login#sso=" + code)
    response.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True)
    return response


@bp.post("/auth/oidc/complete")
@public
@validate_request(CompleteRequest)
@validate_response(LoginResult)
async def sso_complete(data: CompleteRequest) -> LoginResult:
    """Trade the callback's one-time code (a minute, once) for a session, a restricted
    session or the second step: what POST /api/auth/login answers."""
    settings = app_services().settings
    _provider()
    return LoginResult(root=await service.complete(data.code, client_address(), settings))


@bp.post("/auth/oidc/backchannel-logout")
@public
@validate_response(BackchannelResponse)
async def sso_backchannel_logout() -> BackchannelResponse:
    """OpenID Connect Back-Channel Logout 1.0: the provider's signed logout token ends every
    session of its subject (or provider session), live."""
    provider = _provider()
    form = await request.form
    token = form.get("logout_token", "")
    if not token or len(token) > MAX_LOGOUT_TOKEN:
        raise ApiError(400, "A logout_token is required.")
    ended = await service.backchannel_logout(token, client_address(), provider)
    return BackchannelResponse(sessionsEnded=ended)


@bp.delete("/users/<int:user_id>/sso-link")
@allow(ADMIN)
@validate_response(Message)
async def sso_unlink(user_id: int) -> Message:
    """Remove a user's link to the identity provider (audited). Not a step-up change: it
    takes access away, never gives it."""
    await service.unlink(user_id, current_actor())
    return Message(message="The user is no longer linked to the identity provider.")
