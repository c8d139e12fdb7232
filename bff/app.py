"""create_app(): wires settings, Tortoise, blueprints, error handlers and security headers."""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref
from concurrent.futures import ThreadPoolExecutor
from types import FunctionType
from typing import Any

from hypercorn.typing import ASGISendCallable
from pydantic import BaseModel
from quart import Quart, Response
from quart.ctx import RequestContext
from quart.globals import request_ctx
from quart.typing import ResponseReturnValue, ResponseTypes
from quart.wrappers import Request
from quart_schema import Info, QuartSchema
from tortoise import connections
from werkzeug.wrappers import Response as WerkzeugResponse

from bff.assignments.routes import bp as assignments_bp
from bff.audit.head import HeadWriter
from bff.audit.integrity import checkpointer as audit_checkpointer
from bff.audit.routes import bp as audit_bp
from bff.audit.service import configure_audit
from bff.audit.service import flush as flush_audit
from bff.auth.policy import check_every_route_has_policy, public
from bff.auth.routes import bp as auth_bp
from bff.auth.session_cache import SessionCache
from bff.auth.throttle import LoginThrottle
from bff.collector import Collector
from bff.compression import compress_json
from bff.containers.routes import bp as containers_bp
from bff.db import close_db, init_db, retry_while_unreachable
from bff.docs import bp as docs_bp
from bff.emergency.routes import bp as emergency_bp
from bff.emergency.service import VerifyThrottle
from bff.errors import error_response, register_error_handlers
from bff.files.conversions import WORKER_MODULES
from bff.files.routes import bp as files_bp
from bff.files.staging import configure_staging
from bff.files.staging import probe as probe_storage
from bff.files.staging import settle as settle_uploads
from bff.files.staging import sweeper as upload_sweeper
from bff.files.viewer import PageCache
from bff.ids import IdConverter
from bff.intake.housekeeping import housekeeper as intake_housekeeper
from bff.intake.mailbox import mailbox_job
from bff.intake.routes import bp as intake_bp
from bff.intake.routing import Router as IntakeRouter
from bff.intake.scanfolder import scan_folder_job
from bff.intake.service import take as take_in
from bff.intake.sheet_routes import bp as intake_sheets_bp
from bff.jobs.runner import JobRunner
from bff.live.server import start_live
from bff.mfa.routes import bp as mfa_bp
from bff.observability import register_observability
from bff.oidc.provider import Provider
from bff.oidc.routes import bp as oidc_bp
from bff.patients.routes import bp as patients_bp
from bff.scan.rescan import rescanner
from bff.scan.routes import bp as scan_bp
from bff.scan.service import configure_scanning
from bff.search.routes import bp as search_bp
from bff.search.service import SearchGuard
from bff.services import AppServices, attach_services
from bff.shutdown import draining, handle_sigterm, stop_in_order, stop_watching
from bff.streaming import BffHTTPConnection, BffRequest
from bff.tokens.routes import bp as tokens_bp
from bff.turns import RequestInProgress
from bff.users.bootstrap import ensure_admin
from bff.users.routes import bp as users_bp
from bff.web import bp as web_bp
from bff.workers import WorkerPool
from config.filemodes import private_files
from config.logs import configure_logging, shown
from config.settings import Settings, load_settings
from storage import open_storage

log = logging.getLogger(__name__)

JSON_BODY_LIMIT = 1024 * 1024
# Each readiness check answers within this or counts as down: a load balancer's health check
# times out after a few seconds, and an unreachable S3 endpoint otherwise takes the client's
# retries with backoff (9-13 s) to fail.
HEALTH_CHECK_SECONDS = 2.0

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


# Headers every answer carries, set over any the route set itself.
_FIXED_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
# The one loosening of them a route may ask for: a page the app's own pages frame (a document
# the viewer shows as sandboxed HTML: bff/files/routes.py `viewer_html`).
SAME_ORIGIN_FRAME = (b"x-frame-options", b"SAMEORIGIN")
# Headers every answer carries unless the route set its own.
_DEFAULT_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    # The app keeps a handle on the viewer windows it opens so that signing out can close them
    # (spec section 4): "same-origin" would move each viewer into a browsing context group of
    # its own and leave the app a dead handle. Views say "unsafe-none" themselves
    # (view_headers).
    (b"cross-origin-opener-policy", b"same-origin-allow-popups"),
)
_PATIENT_DATA_PATHS = ("/api/", "/patients/")


class CommonHeaders:
    """The headers every answer carries (security headers; Strict-Transport-Security when
    served over https; `Cache-Control: no-store` on patient data), added as bytes where the
    answer is sent (BffApp's connection): werkzeug's Headers would check and encode each of
    them again on every request."""

    def __init__(self, settings: Settings) -> None:
        hsts = settings.strict_transport_security
        self._set: tuple[tuple[bytes, bytes], ...] = _FIXED_HEADERS
        if hsts is not None:
            self._set += ((b"strict-transport-security", hsts.encode()),)
        self._set_names = frozenset(name for name, _ in self._set)
        self._framed = tuple(
            SAME_ORIGIN_FRAME if name == SAME_ORIGIN_FRAME[0] else (name, value)
            for name, value in self._set
        )

    def added(self, headers: list[tuple[bytes, bytes]], path: str) -> list[tuple[bytes, bytes]]:
        """The answer's own headers (names in lower case, as Quart sends them) with these."""
        names = {name for name, _ in headers}
        out = [pair for pair in headers if pair[0] not in self._set_names]
        out.extend(self._framed if SAME_ORIGIN_FRAME in headers else self._set)
        out.extend(pair for pair in _DEFAULT_HEADERS if pair[0] not in names)
        if path.startswith(_PATIENT_DATA_PATHS):
            # Patient data never sits in a shared cache; only an answer that said `private`
            # itself (a view, a rendered thumbnail or page under a session's link) may sit in
            # the browser's.
            cache = next((value for name, value in out if name == b"cache-control"), b"")
            if not cache.startswith(b"private"):
                out = [pair for pair in out if pair[0] != b"cache-control"]
                out.append((b"cache-control", b"no-store"))
        return out


class HeadedConnection(BffHTTPConnection):
    """BffHTTPConnection whose answers carry the app's CommonHeaders."""

    _path = ""  # the request's path as the app sees it (without a proxy's root path)

    def _create_request_from_scope(self, send: ASGISendCallable) -> Request:
        request = super()._create_request_from_scope(send)
        self._path = request.path
        return request

    async def _send_response(self, send: ASGISendCallable, response: ResponseTypes) -> None:
        common: CommonHeaders = self.app.common_headers  # type: ignore[attr-defined]
        path = self._path

        async def headed(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = common.added(message["headers"], path)
            await send(message)

        await super()._send_response(headed, response)


# Threads for blocking file work (reads, writes, fsyncs, stat, image and RTF conversion).
# asyncio's default, cores + 4, queued file views behind uploads waiting on fsync at load.
IO_THREADS = 32
_WIDENED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def _widen_default_executor() -> None:
    """Give this event loop (once) a default executor of IO_THREADS threads."""
    loop = asyncio.get_running_loop()
    if loop not in _WIDENED:
        _WIDENED.add(loop)
        loop.set_default_executor(
            ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="bff-io")
        )


def _model_responses(app: Quart) -> None:
    """What validate_response hands on for a route's pydantic model, (model, status, None),
    goes to the model's model_dump and Quart's JSON response directly: the same dump that
    quart-schema's conversion makes, without its checks of every result (and of its absent
    headers) for dataclasses, TypedDicts, msgspec and attrs, and its six reads of the app's
    config, on every request. Every other result goes through quart-schema as before."""
    if app.config["QUART_SCHEMA_CONVERT_CASING"]:
        return  # camelised output is quart-schema's own conversion
    schema_make_response = app.make_response
    dump_options = app.config["QUART_SCHEMA_PYDANTIC_DUMP_OPTIONS"]

    async def make_response(result: ResponseReturnValue) -> Response | WerkzeugResponse:
        if (
            type(result) is tuple
            and len(result) == 3
            and result[2] is None
            and isinstance(result[0], BaseModel)
        ):
            dumped = (result[0].model_dump(**dump_options), result[1], None)
            return await Quart.make_response(app, dumped)
        return await schema_make_response(result)

    app.make_response = make_response  # type: ignore[method-assign,assignment]


# Requests that are safe to run twice: on a lost database connection they are run again.
IDEMPOTENT = frozenset({"GET", "HEAD"})


class BffApp(Quart):
    """Quart, with reads run again while the database connection fails (a restart, a
    failover), for up to BFF_DATABASE_RETRY_SECONDS: a blip of a fraction of a second is a
    slower answer, not a 503 (and behind a proxy, not a failure counted against the instance).
    Writes are never repeated: theirs is the 503."""

    retry_seconds: float = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._coroutine_functions: set[Any] = set()  # plain functions only

    def ensure_async(self, func: Any) -> Any:
        """Quart's, remembering the coroutine functions it has seen: Quart asks again for each
        hook, view and error handler on every request (inspect.iscoroutinefunction unwraps
        and reads code flags each time). Only plain functions are remembered, so the set is
        bounded by the code."""
        plain = type(func) is FunctionType  # hashable (a callable object may not be)
        if plain and func in self._coroutine_functions:
            return func
        wrapped = super().ensure_async(func)
        if plain and wrapped is func:
            self._coroutine_functions.add(func)
        return wrapped

    async def handle_request(self, request: Request) -> ResponseTypes:
        with RequestInProgress():  # background work on the database waits (bff/turns.py)
            return await super().handle_request(request)

    async def dispatch_request(
        self, request_context: RequestContext | None = None
    ) -> ResponseReturnValue:
        dispatch = super().dispatch_request
        if self.retry_seconds <= 0 or (request_context or request_ctx).request.method not in (
            IDEMPOTENT
        ):
            return await dispatch(request_context)
        return await retry_while_unreachable(lambda: dispatch(request_context), self.retry_seconds)


def create_app(settings: Settings | None = None, *, bootstrap_admin: bool = True) -> Quart:
    """Build the Quart application; the database opens when the app starts serving."""
    private_files()  # an app built by other means than our entry points (tests, tools) too
    settings = settings or load_settings()
    configure_logging(settings)
    app = BffApp(__name__)
    app.retry_seconds = settings.database_retry_seconds
    app.request_class = BffRequest  # flow-controlled bodies: uploads stream, never pile up
    app.asgi_http_class = HeadedConnection
    app.common_headers = CommonHeaders(settings)  # type: ignore[attr-defined]
    session_cache = SessionCache(settings.session_cache_seconds)
    storage = open_storage(settings.storage_url)
    login_throttle = LoginThrottle(settings)
    search_guard = SearchGuard(settings)
    workers = WorkerPool(
        settings.conversion_workers,
        settings.conversion_queue,
        settings.conversion_seconds,
        preload=WORKER_MODULES,
        memory=settings.conversion_memory_mb * 1024 * 1024,
    )
    sweeper = upload_sweeper(storage, settings)
    jobs = JobRunner(storage, settings)
    checkpointer = audit_checkpointer(storage, settings)
    rescans = rescanner(storage)  # held, unscanned and recent files (bff/scan/rescan.py)
    # The intake (bff/intake/): its housekeeping; the scan folder and the mailbox when set,
    # each handing its documents to the intake's commit (service.take).
    intake_jobs = (
        intake_housekeeper(storage, settings),
        *(
            job
            for job in (scan_folder_job(settings, take_in), mailbox_job(settings, take_in))
            if job is not None
        ),
    )
    # Each item received routed once, by one process (cover sheets, suggestions)
    intake_router = IntakeRouter(storage, settings, workers)
    collector = Collector()
    configure_staging(settings)
    configure_scanning(settings)
    configure_audit(settings)
    services = AppServices(
        settings=settings,
        storage=storage,
        session_cache=session_cache,
        login_throttle=login_throttle,
        verify_throttle=VerifyThrottle(settings),
        live=start_live(app, settings, session_cache),
        workers=workers,
        audit_head=HeadWriter(storage),
        oidc=Provider(settings) if settings.oidc_enabled else None,
        page_cache=PageCache(settings.preview_cache_mb * 1024 * 1024),
        search=search_guard,
        jobs=jobs,
        periodic=(sweeper, checkpointer, rescans, *intake_jobs),
        intake_router=intake_router,
    )
    attach_services(app, services)
    app.config["MAX_CONTENT_LENGTH"] = JSON_BODY_LIMIT
    # The most of a refused request's body received (bff/streaming.py): what nginx lets
    # through, BFF_MAX_UPLOAD_MB + 1 MB (config/nginx/bff.conf.template).
    app.config["DISCARD_BODY_LIMIT"] = settings.max_upload_bytes + 1024 * 1024
    QuartSchema(
        app,
        info=Info(title="Patient records BFF", version="0.1.0"),
        swagger_ui_path=None,
        redoc_ui_path=None,
        scalar_ui_path=None,
    )
    _model_responses(app)
    register_error_handlers(app)
    register_observability(app)  # the request id is set before any other hook runs
    app.url_map.converters["int"] = IdConverter  # before any route is added
    for bp in (
        auth_bp,
        users_bp,
        assignments_bp,
        containers_bp,
        files_bp,
        patients_bp,
        audit_bp,
        tokens_bp,
        emergency_bp,
        mfa_bp,
        oidc_bp,
        search_bp,
        scan_bp,
        intake_bp,
        intake_sheets_bp,
        docs_bp,
    ):
        app.register_blueprint(bp)
    app.register_blueprint(web_bp)  # the web app; its catch-all never takes /api paths

    @app.get("/api/health")
    @public
    async def health() -> Response:
        """Readiness: 200 when the database answers and the file storage takes a write, 503
        otherwise (and once the process is stopping)."""
        if draining():
            return error_response(503, "The server is shutting down.")
        try:
            async with asyncio.timeout(HEALTH_CHECK_SECONDS):
                await connections.get("default").execute_query("SELECT 1")
        except Exception as exc:  # noqa: BLE001 - any failure means not ready
            log.warning("Health check: database unavailable (%s)", type(exc).__name__)
            return error_response(503, "The database is unavailable.")
        try:
            async with asyncio.timeout(HEALTH_CHECK_SECONDS):
                await probe_storage(storage)  # writes and removes a small staged object
        except Exception as exc:  # noqa: BLE001 - any failure means not ready
            log.warning("Health check: storage unavailable (%s)", type(exc).__name__)
            return error_response(503, "The file storage is unavailable.")
        return Response(
            '{"status":"ok","database":"ok","storage":"ok"}', content_type="application/json"
        )

    app.after_request(compress_json)

    @app.before_serving
    async def _start() -> None:
        _widen_default_executor()
        await init_db(settings)
        await storage.start()
        handle_sigterm(services.live)  # a Hypercorn worker drains on SIGTERM (bff/shutdown.py)
        sweeper.start()  # removes what uploads that never committed left (a crash)
        checkpointer.start()  # signs where the audit log stands, outside the database
        if settings.clamd:
            rescans.start()  # held, unscanned and recent files scanned (again)
        for job in intake_jobs:  # the intake's housekeeping, scan folder and mailbox
            job.start()
        intake_router.start()  # items received and not yet routed (a crash, a stop) first
        jobs.start()  # text for search (and other work on files) in the background
        if bootstrap_admin:
            created = await ensure_admin(settings)
            if created:
                username, password = created
                given = password if password else "(from BFF_ADMIN_PASSWORD)"
                print(
                    shown(f"Created the first admin - username: {username}  password: {given}"),
                    file=sys.stderr,
                    flush=True,
                )
        collector.start()  # the garbage collector's schedule (bff/collector.py)

    async def stop_intake_jobs() -> None:
        for job in intake_jobs:
            await job.stop()
        await intake_router.stop()  # the item being routed given back

    @app.after_serving
    async def _stop() -> None:
        await stop_in_order(
            [
                ("watching for SIGTERM", stop_watching),
                ("the garbage collector's schedule", collector.stop),
                # a document being taken is cut off: it stays in the folder or the mailbox
                ("stopping the intake's jobs", stop_intake_jobs),
                # uploads cut off by the stop leave nothing behind
                ("settling uploads", lambda: settle_uploads(storage)),
                # jobs in progress given back for another process or the next start
                ("stopping file jobs", jobs.stop),
                # entries of the last requests, before the database closes
                ("writing the audit log", flush_audit),
                ("signing the audit head", services.audit_head.stop),  # before storage closes
                ("ending worker processes", workers.close),
                ("stopping the upload sweep", sweeper.stop),
                ("stopping the audit checkpoints", checkpointer.stop),
                ("stopping the rescans of files", rescans.stop),
                ("closing storage", storage.close),
                ("closing the sign-in throttle", login_throttle.aclose),
                ("closing the searches' connections", search_guard.aclose),
                ("closing the database", close_db),
            ]
        )

    check_every_route_has_policy(app)
    return app
