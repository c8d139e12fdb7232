"""What operators watch: the request id, the access log and request metrics of every request,
GET /metrics (Prometheus) for allowed scrapers, and the liveness check.

Every request gets its id (config/logs.py) before anything else runs; when it is answered, one
`bff.access` record and the request metrics name its route template (`/api/blobs/<container>/
<folder>`), never its path, which names patients, folders and files, nor its query string.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import time

from quart import Quart, Response, g, request
from werkzeug.datastructures import Headers

from bff import metrics
from bff.auth.policy import FORBIDDEN, public, scrapers_only
from bff.errors import ApiError
from bff.services import app_services
from config.logs import REQUEST_ID_HEADER, new_request_id

access_log = logging.getLogger("bff.access")

# Headers a proxy adds: a request carrying one came through a proxy, and unless the BFF trusts
# proxies (BFF_TRUSTED_PROXY_HOPS) its address is the proxy's, not the client's.
FORWARDING_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP")


def first_header(headers: Headers, name: str) -> str | None:
    """headers.get(name), without the exception werkzeug raises and catches inside for a
    header that is absent (the usual case here, on every request)."""
    wanted = name.lower()
    for key, value in headers:
        if key.lower() == wanted:
            return value
    return None


def route_template() -> str:
    """The matched URL rule ("unmatched" when none matched: the path is never used)."""
    return request.url_rule.rule if request.url_rule is not None else "unmatched"


async def _started() -> None:
    here = g._get_current_object()  # one context lookup for both (the proxy costs one each)
    here.started = time.perf_counter()
    here.request_id = new_request_id(first_header(request.headers, REQUEST_ID_HEADER))


async def _answered(response: Response) -> Response:
    here = g._get_current_object()
    started = getattr(here, "started", None)
    if started is None:  # a failure before the first hook ran
        return response
    seconds = time.perf_counter() - started
    response.headers[REQUEST_ID_HEADER] = here.request_id
    current = request._get_current_object()  # type: ignore[attr-defined]
    rule = current.url_rule
    route = rule.rule if rule is not None else "unmatched"
    method = current.method
    status = response.status_code
    metrics.request_done(route, method, status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        principal = getattr(here, "principal", None)
        # The record built directly: Logger.info would also walk the stack for its caller
        # (always this function), a third of the record's cost.
        access_log.handle(
            access_log.makeRecord(
                access_log.name,
                logging.INFO,
                __file__,
                0,
                "%s %s %d %.1fms",
                (method, route, status, seconds * 1000),
                None,
                func="_answered",
                extra={
                    "route": route,
                    "method": method,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 1),
                    "user_id": principal.user_id if principal is not None else None,
                },
            )
        )
    return response


def _address_allowed() -> bool:
    """Whether the caller's address is in BFF_METRICS_ALLOW. A request that came through a
    proxy (it carries a forwarding header) is never allowed by its address: without
    BFF_TRUSTED_PROXY_HOPS every client would have the proxy's address (often 127.0.0.1), and
    with it a person on the proxy's machine would pass. A scraper asks each instance directly
    (one answer per instance); through a proxy only the bearer token opens /metrics."""
    settings = app_services().settings
    if any(header in request.headers for header in FORWARDING_HEADERS):
        return False
    try:
        address = ipaddress.ip_address((request.remote_addr or "").strip("[]"))
    except ValueError:
        return False
    return any(address in network for network in settings.metrics_networks)


def _token_allowed() -> bool:
    token = app_services().settings.metrics_token
    sent = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


def register_observability(app: Quart) -> None:
    """Add the request hooks, GET /metrics and GET /api/health/live to app."""
    app.before_request(_started)
    app.after_request(_answered)

    @app.get("/metrics")
    @scrapers_only
    async def prometheus_metrics() -> Response:
        """Prometheus metrics (text format): only from BFF_METRICS_ALLOW or with the bearer
        token BFF_METRICS_TOKEN."""
        if not (_token_allowed() or _address_allowed()):
            raise ApiError(403, FORBIDDEN)
        body, content_type = metrics.exposition()
        return Response(body, content_type=content_type)

    @app.get("/api/health/live")
    @public
    async def liveness() -> Response:
        """Liveness: 200 as long as the process answers; touches no database, storage or
        Redis (a dependency's outage must not get every instance restarted)."""
        return Response('{"status":"ok"}', content_type="application/json")
