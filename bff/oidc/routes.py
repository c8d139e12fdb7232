"""Single sign-on endpoints under /api/auth/oidc, and an admin's link of a user to the
identity provider under /api/users/{id}/sso*."""

from __future__ import annotations

from urllib.parse import urlencode

from quart import Blueprint, Response, request
from quart_schema import validate_request, validate_response

from bff.auth.policy import ADMIN, allow, public
from bff.auth.schemas import LoginResult
from bff.errors import ApiError
from bff.oidc import service
from bff.oidc.provider import Provider
from bff.oidc.schemas import (
    BackchannelResponse,
    BindRequest,
    CompleteRequest,
    ExpectResponse,
    LinkCodeRequest,
    LinkRequest,
    SsoConfig,
    UserSso,
)
from bff.request_context import client_address, current_actor
from bff.services import app_services
from bff.users.schemas import Message

bp = Blueprint("oidc", __name__, url_prefix="/api")

COOKIE = "bff_oidc"  # the sign-in under way: state, nonce, PKCE verifier (signed, 10 minutes)
BROWSER_COOKIE = "bff_oidc_browser"  # this browser (random, a month): binds codes to it
COOKIE_PATH = "/api/auth/oidc"
MAX_LOGOUT_TOKEN = 16 * 1024


def _provider() -> Provider:
    provider = app_services().oidc
    if provider is None:
        raise ApiError(404, service.NOT_CONFIGURED)
    return provider


async def _counted() -> None:
    """Count this request to a public endpoint against its address, or against its browser
    if that signed in from this address before (429 beyond the limit)."""
    browser = service.browser_value(request.cookies.get(BROWSER_COOKIE))
    key = service.browser_key(browser) if browser else None
    await app_services().login_throttle.sso_request(client_address(), key)


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
    """Send the browser to the identity provider (authorization code flow with PKCE); set the
    cookie of this sign-in and the one naming this browser."""
    services = app_services()
    provider = _provider()
    try:
        await _counted()
        browser = request.cookies.get(BROWSER_COOKIE)
        started = await service.start(services.settings, provider, browser)
    except service.Refused as refused:
        return _to_login(refused.reason)
    except ApiError as exc:
        if exc.status == 429:
            return _to_login("busy")
        raise
    response = _redirect(started.url)
    secure = services.settings.https
    for name, value, seconds in (
        (COOKIE, started.cookie, service.STATE_SECONDS),
        (BROWSER_COOKIE, started.browser, service.BROWSER_SECONDS),
    ):
        response.set_cookie(
            name,
            value,
            max_age=seconds,
            path=COOKIE_PATH,
            httponly=True,
            samesite="Lax",
            secure=secure,
        )
    return response


@bp.get("/auth/oidc/callback")
@public
async def sso_callback() -> Response:
    """The provider's answer: checked in full, then the web app's /login takes the sign-in up
    (`#sso=`), or offers to link an account (`#sso-link=`), with a one-time code in the URL's
    fragment (never sent to a server, so never logged) that only this browser can use."""
    services = app_services()
    provider = _provider()
    params = {key: request.args.get(key, "")[:2048] for key in ("code", "state", "error")}
    try:
        await _counted()
        answer = await service.callback(
            params,
            request.cookies.get(COOKIE),
            request.cookies.get(BROWSER_COOKIE),
            client_address(),
            services.settings,
            provider,
            services.login_throttle,
        )
    except service.Refused as refused:
        return _to_login(refused.reason)
    except ApiError as exc:
        if exc.status == 429:
            return _to_login("busy")
        raise
    response = _redirect(("/login#sso-link=" if answer.link else "/login#sso=") + answer.code)
    response.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True)
    return response


@bp.post("/auth/oidc/complete")
@public
@validate_request(CompleteRequest)
@validate_response(LoginResult)
async def sso_complete(data: CompleteRequest) -> LoginResult:
    """Trade the callback's one-time code (a minute, once, in the browser that started the
    sign-in) for a session, a restricted session or the second step: what POST
    /api/auth/login answers."""
    settings = app_services().settings
    _provider()
    await _counted()
    browser = request.cookies.get(BROWSER_COOKIE)
    result = await service.complete(data.code, browser, client_address(), settings)
    return LoginResult(root=result)


@bp.post("/auth/oidc/link")
@public
@validate_request(LinkRequest)
@validate_response(LoginResult)
async def sso_link(data: LinkRequest) -> LoginResult:
    """Link the provider's sign-in (`#sso-link=` code, 5 minutes, this browser) to a local
    account by its password (a second factor follows if the account has one), and sign in:
    what POST /api/auth/login answers. Not for admin accounts."""
    services = app_services()
    _provider()
    await _counted()
    result = await service.link_by_password(
        data.code,
        data.username,
        data.password,
        request.cookies.get(BROWSER_COOKIE),
        client_address(),
        services.settings,
        services.login_throttle,
    )
    return LoginResult(root=result)


@bp.post("/auth/oidc/link-code")
@public
@validate_request(LinkCodeRequest)
@validate_response(LoginResult)
async def sso_link_code(data: LinkCodeRequest) -> LoginResult:
    """Link the provider's sign-in (`#sso-link=` code, 5 minutes, this browser) to the account
    an administrator issued the link code for (once; a second factor follows if the account has
    one, whatever the provider did), and sign in: what POST /api/auth/login answers. A wrong
    code counts as a failed sign-in. Not for admin accounts."""
    services = app_services()
    _provider()
    await _counted()
    result = await service.link_by_code(
        data.code,
        data.linkCode,
        request.cookies.get(BROWSER_COOKIE),
        client_address(),
        services.settings,
        services.login_throttle,
    )
    return LoginResult(root=result)


@bp.post("/auth/oidc/backchannel-logout")
@public
@validate_response(BackchannelResponse)
async def sso_backchannel_logout() -> BackchannelResponse:
    """OpenID Connect Back-Channel Logout 1.0: the provider's signed logout token ends every
    session of its subject (or provider session), live."""
    provider = _provider()
    await _counted()
    form = await request.form
    token = form.get("logout_token", "")
    if not token or len(token) > MAX_LOGOUT_TOKEN:
        raise ApiError(400, "A logout_token is required.")
    ended = await service.backchannel_logout(token, client_address(), provider)
    return BackchannelResponse(sessionsEnded=ended)


@bp.get("/users/<int:user_id>/sso")
@allow(ADMIN)
@validate_response(UserSso)
async def sso_account(user_id: int) -> UserSso:
    """A user's single sign-on: the provider's subject linked, a pending "link at next
    sign-in", and the subjects seen lately without a link (to pick one)."""
    return await service.sso_account(user_id, app_services().settings)


@bp.put("/users/<int:user_id>/sso-link")
@allow(ADMIN, recent_auth=True)
@validate_request(BindRequest)
@validate_response(Message)
async def sso_bind(user_id: int, data: BindRequest) -> Message:
    """Link a user to the provider's subject an admin entered or picked (audited; a step-up
    change: it gives whoever holds that subject the account)."""
    provider = _provider()
    await service.bind(user_id, data.subject, current_actor(), provider.issuer)
    return Message(message="The user is linked to the identity provider.")


@bp.delete("/users/<int:user_id>/sso-link")
@allow(ADMIN)
@validate_response(Message)
async def sso_unlink(user_id: int) -> Message:
    """Remove a user's link to the identity provider (audited). Not a step-up change: it
    takes access away, never gives it."""
    await service.unlink(user_id, current_actor())
    return Message(message="The user is no longer linked to the identity provider.")


@bp.put("/users/<int:user_id>/sso-expected")
@allow(ADMIN, recent_auth=True)
@validate_response(ExpectResponse)
async def sso_expect(user_id: int) -> ExpectResponse:
    """Issue a one-time link code for the user (a week; a new one replaces theirs; never an
    admin account), shown in this answer only: the person enters it after signing in through
    the provider, which links that sign-in to the account. Audited; a step-up change."""
    provider = _provider()
    code, until = await service.expect(user_id, current_actor(), provider.issuer)
    return ExpectResponse(
        message="Link code issued. Give it to the person privately: it is shown only now.",
        linkCode=code,
        expectedUntil=until,
    )


@bp.delete("/users/<int:user_id>/sso-expected")
@allow(ADMIN)
@validate_response(Message)
async def sso_cancel_expected(user_id: int) -> Message:
    """Withdraw a user's pending "link at next sign-in" (audited)."""
    await service.cancel_expected(user_id, current_actor())
    return Message(message="The link at next sign-in is withdrawn.")
