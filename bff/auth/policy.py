"""The one permission mechanism: every route declares who may call it and what it touches.

`@allow(roles, scope=...)` authenticates the caller (401), checks the role table of spec
section 6 (403) and, for non-admins, that the container or folder named in the URL is assigned
to them (404, so unassigned resources stay invisible). Each refusal of a signed-in caller is
audited here (`access_denied`, with the URL's container, folder and file). `@public` marks the
few open routes; `@scrapers_only` the monitoring scrape (GET /metrics). A restricted session (a
role in BFF_MFA_REQUIRED_ROLES without a second factor) passes only routes declared
`enrolment=True`; everything else is 403. A route declared `recent_auth=True` (a sensitive
change) also needs the session to have proved its password or a factor recently, or to send a
step-up proof (bff/auth/stepup.py); else 403 with `reauth: true`. A route declared
`intake=True` also needs the intake permission (admins, and staff an admin granted it: 403).
`check_every_route_has_policy` refuses to start an app with an undeclared route.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from quart import Quart, g, request

from bff.assignments.access import caller_assignments
from bff.audit.service import record_refusal
from bff.auth import stepup
from bff.auth.links import verify_link
from bff.auth.sessions import ENROL_FIRST, Principal, authenticate, session_principal
from bff.containers.service import CONTAINER_NOT_FOUND, FOLDER_NOT_FOUND
from bff.emergency.grants import active_grant
from bff.emergency.grants import cookie_name as emergency_cookie
from bff.errors import ApiError
from bff.request_context import current_actor
from bff.services import app_services
from bff.users.models import Role

P = ParamSpec("P")
R = TypeVar("R")

ANY_ROLE = frozenset(Role)
ADMIN = frozenset({Role.ADMIN})
CAN_UPLOAD = frozenset({Role.ADMIN, Role.DOCTOR, Role.NURSE})
CAN_EDIT_PATIENT = frozenset({Role.ADMIN, Role.DOCTOR})

FORBIDDEN = "You don't have permission to do this."
NO_LINK = "Not found. Please open the file again from its folder."


class _NoLink(Exception):
    """A signed-in caller without the link a `link_required` route is served under."""


class Scope(Enum):
    """What a route touches, read from its URL parameters `container` and `folder`."""

    NONE = "none"
    CONTAINER = "container"
    FOLDER = "folder"


@dataclass(frozen=True)
class Policy:
    """Who may call a route (None: anyone, signed in or not) and its scope."""

    roles: frozenset[Role] | None
    scope: Scope
    recent_auth: bool = False
    intake: bool = False  # the intake permission too (bff/intake/)


POLICY_ATTR = "__bff_policy__"


def public(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Mark a route as open to everyone."""
    setattr(func, POLICY_ATTR, Policy(None, Scope.NONE))
    return func


def scrapers_only(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Mark a route for monitoring scrapers, not people: no session; the handler answers only
    the addresses in BFF_METRICS_ALLOW or the bearer of BFF_METRICS_TOKEN
    (bff/observability.py), 403 otherwise."""
    setattr(func, POLICY_ATTR, Policy(None, Scope.NONE))
    return func


def current_principal() -> Principal:
    """The caller that the route's policy authenticated."""
    principal: Principal = g.principal
    return principal


async def _check_scope(principal: Principal, scope: Scope, params: dict[str, Any]) -> None:
    container = str(params.get("container"))
    assignments = await caller_assignments(principal.user_id)
    if scope is Scope.CONTAINER:
        if not assignments.has_container(container):
            raise ApiError(404, CONTAINER_NOT_FOUND)
    elif scope is Scope.FOLDER and not assignments.has_folder(container, str(params.get("folder"))):
        raise ApiError(404, FOLDER_NOT_FOUND)


async def _audit_refusal(refusal: ApiError, params: dict[str, Any]) -> None:
    """Record a signed-in caller's refused request with what its URL names (batched)."""
    rule = request.url_rule.rule if request.url_rule is not None else request.path
    await record_refusal(
        current_actor(),
        refusal.status,
        f"{request.method} {rule}",
        container=str(params.get("container", "")),
        folder=str(params.get("folder", "")),
        blob=str(params.get("blob", "")),
    )


def _url_token() -> str | None:
    """The spec's `?auth=<session token>`, only where BFF_ALLOW_TOKEN_IN_URL enables it for an
    old client: otherwise it is ignored, as if absent."""
    if not app_services().settings.allow_token_in_url:
        return None
    return request.args.get("auth")


async def _caller(link_path: tuple[str, ...] | None, link_required: bool) -> Principal:
    """The caller by the x-auth-token header or, where a route allows it (file views opened
    in a new tab, which cannot send headers), a signed `link` or, when enabled, the spec's
    `auth` query. link_required: by the link alone (404 without one)."""
    services = app_services()
    settings, cache = services.settings, services.session_cache
    if link_required:
        assert link_path is not None
        if link := request.args.get("link"):
            return await session_principal(verify_link(settings, link, link_path), cache)
        token = request.headers.get("x-auth-token")
        principal = await authenticate(token, settings, cache)
        g.principal = principal
        raise _NoLink
    token = request.headers.get("x-auth-token")
    if token is None and link_path is not None:
        if link := request.args.get("link"):
            return await session_principal(verify_link(settings, link, link_path), cache)
        token = _url_token()
    return await authenticate(token, settings, cache)


async def _emergency(params: dict[str, Any]) -> bool:
    """Whether the request carries a live emergency grant for the folder in the URL."""
    if "x-auth-token" in request.headers or "link" in request.args or _url_token() is not None:
        return False  # staff credentials take precedence
    access = await active_grant(request.cookies.get(emergency_cookie(app_services().settings)))
    if access is None:
        return False
    if (params.get("container"), params.get("folder")) != (access.container, access.folder):
        raise ApiError(404, FOLDER_NOT_FOUND)
    g.principal = None
    g.emergency = access
    return True


def allow(
    roles: frozenset[Role],
    scope: Scope = Scope.NONE,
    *,
    link: tuple[str, ...] | None = None,
    link_purpose: str = "",
    link_required: bool = False,
    emergency: bool = False,
    enrolment: bool = False,
    recent_auth: bool = False,
    intake: bool = False,
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Require a signed-in caller with one of roles and, for non-admins, access to scope.

    `link` names the URL parameters a signed view link is bound to; only such routes accept
    credentials in the query string; `link_purpose` (a name starting '.bff-', which no
    container can have) is signed before them, so that such a link opens nothing else (a
    thumbnail's link is no view link); `link_required` routes accept only such a link (one
    handed out by an audited request, which covers what the link serves): a signed-in caller
    without one is refused as if the folder did not exist for them. `emergency` routes also
    serve a responder whose emergency grant (a SmartToken) covers the folder in the URL,
    read-only. `enrolment` routes also
    serve a restricted session (one that must set up a second factor first). `recent_auth`
    routes are sensitive changes: the step-up rule (bff/auth/stepup.py) applies. `intake`
    routes also need the intake permission (`Principal.may_intake`: admins always).
    """
    policy = Policy(roles, scope, recent_auth, intake)

    def decorator(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            here = g._get_current_object()  # one context lookup (the proxy costs one each)
            here.emergency = None
            if emergency and await _emergency(dict(kwargs)):
                return await func(*args, **kwargs)
            link_path = None if link is None else tuple(str(kwargs[name]) for name in link)
            if link_path is not None and link_purpose:
                link_path = (link_purpose, *link_path)
            try:
                principal = await _caller(link_path, link_required)
            except _NoLink:
                # Signed in, but not by the link this route is served under: as for a folder
                # one is not assigned (the role and scope checks come first, as they would).
                principal = current_principal()
                refusal = ApiError(404, NO_LINK)
                if principal.role not in roles:
                    refusal = ApiError(403, FORBIDDEN)
                elif scope is not Scope.NONE and not principal.is_admin:
                    try:
                        await _check_scope(principal, scope, dict(kwargs))
                    except ApiError as out_of_scope:
                        refusal = out_of_scope
                await _audit_refusal(refusal, dict(kwargs))
                raise refusal from None
            here.principal = principal
            try:
                if principal.restricted and not enrolment:
                    raise ApiError(403, ENROL_FIRST)
                if principal.role not in roles or (intake and not principal.may_intake):
                    raise ApiError(403, FORBIDDEN)
                if scope is not Scope.NONE and not principal.is_admin:
                    await _check_scope(principal, scope, dict(kwargs))
                if recent_auth:
                    await stepup.require_recent(
                        principal, app_services().settings, request.headers.get(stepup.HEADER)
                    )
            except ApiError as refusal:
                await _audit_refusal(refusal, dict(kwargs))
                raise
            return await func(*args, **kwargs)

        setattr(wrapper, POLICY_ATTR, policy)
        return wrapper

    return decorator


def policy_of(app: Quart, endpoint: str) -> Policy | None:
    """The policy declared on an endpoint's view function."""
    view = app.view_functions.get(endpoint)
    return getattr(view, POLICY_ATTR, None)


# Routes registered by libraries (static files, the OpenAPI document) are public by nature.
LIBRARY_ENDPOINTS = {"static", "openapi", "swagger_ui", "redoc_ui", "scalar_ui"}


def check_every_route_has_policy(app: Quart) -> None:
    """Refuse to start when any route of ours lacks a declared policy."""
    missing = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint not in LIBRARY_ENDPOINTS and policy_of(app, rule.endpoint) is None
    ]
    if missing:
        raise RuntimeError(f"Routes without a permission policy: {', '.join(sorted(missing))}")
