"""The app's long-lived services in one typed object: stored once per app, read through one
accessor (so two apps in one process, as the tests run them, never share state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quart import Quart
from quart.globals import _cv_app

if TYPE_CHECKING:
    from bff.audit.head import HeadWriter
    from bff.auth.session_cache import SessionCache
    from bff.auth.throttle import LoginThrottle
    from bff.emergency.service import VerifyThrottle
    from bff.files.viewer import PageCache
    from bff.intake.routing import Router
    from bff.jobs.runner import JobRunner
    from bff.leases import Periodic
    from bff.live.server import LiveHub
    from bff.oidc.provider import Provider
    from bff.search.service import SearchGuard
    from bff.workers import WorkerPool
    from config.settings import Settings
    from storage.base import Storage

_KEY = "bff"


@dataclass(frozen=True)
class AppServices:
    """What every request may need besides the database: built once in create_app."""

    settings: Settings
    storage: Storage
    session_cache: SessionCache
    login_throttle: LoginThrottle
    verify_throttle: VerifyThrottle
    live: LiveHub
    workers: WorkerPool  # conversions off the server process (bff/workers.py)
    audit_head: HeadWriter  # the signed head of the audit log (bff/audit/head.py)
    page_cache: PageCache  # the viewer's rendered pages in this process (bff/files/viewer.py)
    search: SearchGuard  # searches' rate, connections and time budget (bff/search/service.py)
    oidc: Provider | None = None  # the identity provider of single sign-on (bff/oidc/)
    jobs: JobRunner | None = None  # background work on files (bff/jobs/), woken on commit
    # The upload sweep with the retention purge, and the audit checkpoints (bff/leases.py)
    periodic: tuple[Periodic, ...] = ()
    # The intake's routing of new items (bff/intake/routing.py), woken when one is received
    intake_router: Router | None = None


def attach_services(app: Quart, services: AppServices) -> None:
    """Give app its services (create_app calls this once)."""
    app.extensions[_KEY] = services


def running_services(app: Quart | None = None) -> AppServices | None:
    """The services of app (default: the running app), or None outside an app (the command
    line), where nobody is connected and nothing is cached."""
    if app is None:
        # The app context's variable itself: has_app_context() and current_app's proxy cost
        # a lookup each, on every request (twice: the policy and the assignments read this).
        context = _cv_app.get(None)
        if context is None:
            return None
        app = context.app
    services: AppServices | None = app.extensions.get(_KEY)
    return services


def app_services(app: Quart | None = None) -> AppServices:
    """The services of app (default: the running app); an error outside an app."""
    services = running_services(app)
    if services is None:
        raise RuntimeError("No app services here: create the app with bff.app.create_app")
    return services
