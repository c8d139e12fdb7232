"""Stopping gracefully: what a Hypercorn worker does when SIGTERM reaches it.

Hypercorn's master stops its workers on SIGTERM: they stop accepting, let the requests in
flight (uploads, views) finish for up to `graceful_timeout`, then run the app's
after_serving (the audit writer is flushed, the database closed). But platforms signal more
than the master: systemd's default KillMode and Heroku send SIGTERM to every process, and a
worker killed by it would drop its uploads half-way. So each worker handles SIGTERM itself:

- it starts draining: GET /api/health answers 503 (a load balancer stops sending new work) and
  its live connections get `live:reconnect` and are closed, so open websockets do not hold the
  graceful wait and clients reconnect to an instance that is up;
- it passes SIGTERM on to its master, which then stops every worker the graceful way (the
  same as when only the master was signalled), unless the master has been told to stop
  already (its stop event set within PASS_ON_SECONDS): where every process was signalled, a
  second SIGTERM reaching Hypercorn's master while its handler sets that event runs the
  handler again inside itself, which waits forever for the event's lock the first one holds,
  and every worker then waits for it too (each polls the event) and never stops.

Where only the master is signalled (Docker and Kubernetes signal PID 1), the master tells its
workers to stop through an event it gave each of them (Hypercorn polls it every 0.1 s, then
stops accepting and waits for the requests in flight). Each worker watches the same event and
drains the same way, so its websockets do not hold the graceful wait either.

Serving in-process (`python -m bff serve`, `hypercorn -w 0`), Hypercorn's own handler stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bff.errors import ApiError
from bff.live.server import LiveHub
from bff.metrics import hypercorn_master_pid
from bff.streaming import cut_off_streams

log = logging.getLogger(__name__)

_draining = False
_watching: set[asyncio.Task[None]] = set()
POLL_SECONDS = 0.1  # as often as Hypercorn's worker polls the same event
# How long a worker signalled itself waits for its master's stop event before it passes
# SIGTERM on: where every process was signalled at once, the master's own SIGTERM sets it
# within milliseconds.
PASS_ON_SECONDS = 1.0
# Each step of the app's stop (after_serving) gets this long: one that hangs (a database or
# storage that stopped answering, a task that swallowed its cancellation) is logged by name and
# the next steps still run, the database closing last, well within Hypercorn's own 60 s limit
# on the whole stop (its shutdown_timeout), after which it would drop the rest.
STEP_SECONDS = 10.0
SLOW_STEP_SECONDS = 2.0
# An upload whose body is still arriving this long before the graceful wait ends (or at half
# of it) is answered 503 RESTARTING, logged and counted like any answer; Hypercorn would cancel
# it at the end of the wait, and its client would get a bare 500.
CUT_OFF_MARGIN = 2.0
RESTARTING = "The server is restarting. Upload the file again."


def draining() -> bool:
    """Whether this process has been told to stop (readiness then fails)."""
    return _draining


async def _drain(hub: LiveHub, master: int | None) -> None:
    """Readiness 503 from now on, live connections told to reconnect and closed; master: a
    master to pass SIGTERM on to (None: it is stopping already)."""
    global _draining
    if _draining:
        return
    _draining = True
    log.info("Stopping: finishing requests in flight, closing live connections")
    grace = _graceful_timeout()
    if grace is not None:
        cut = max(grace - CUT_OFF_MARGIN, grace / 2)
        asyncio.get_running_loop().call_later(cut, _cut_off_uploads, (grace - cut) / 2)
    passing_on = None
    if master is not None:
        passing_on = asyncio.get_running_loop().create_task(
            pass_on_sigterm(master, _master_stop_event())
        )
    closed = await hub.drain()
    log.info("Closed %d live connection(s) with a reconnect hint", closed)
    if passing_on is not None:
        await passing_on


def _cut_off_uploads(seconds: float) -> None:
    """Answer the uploads still arriving (what is left of their bodies received for at most
    seconds, then their connections close: before Hypercorn cancels them at the end of its
    graceful wait)."""
    cut = cut_off_streams(ApiError(503, RESTARTING, {"Retry-After": "5"}), seconds)
    if cut:
        log.warning("Stopping: %d upload(s) still arriving answered 503 (upload again)", cut)


def _worker_kwargs() -> dict[str, Any]:
    """The keyword arguments Hypercorn's master spawned this worker with ({} if none)."""
    return getattr(multiprocessing.current_process(), "_kwargs", None) or {}


def _graceful_timeout() -> float | None:
    """Hypercorn's graceful_timeout as this worker was given it (None: not a worker)."""
    grace = getattr(_worker_kwargs().get("config"), "graceful_timeout", None)
    return float(grace) if isinstance(grace, int | float) and grace > 0 else None


async def pass_on_sigterm(master: int, event: Any | None, seconds: float = PASS_ON_SECONDS) -> bool:
    """SIGTERM to the master, unless its stop event (None: not known) is set within `seconds`,
    which means it was signalled too (see the module's docstring); whether it was sent."""
    if event is not None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if event.is_set():
                return False
            await asyncio.sleep(POLL_SECONDS)
        if event.is_set():
            return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(master, signal.SIGTERM)
    return True


def _master_stop_event() -> Any | None:
    """The event Hypercorn's master sets when it is told to stop, as this worker was given it
    (the keyword arguments of the spawned worker process; None if Hypercorn changes that)."""
    event = _worker_kwargs().get("shutdown_event")
    return event if callable(getattr(event, "is_set", None)) else None


async def _watch(event: Any, hub: LiveHub) -> None:
    while not event.is_set():  # noqa: ASYNC110 - a multiprocessing event: polled, as Hypercorn does
        await asyncio.sleep(POLL_SECONDS)
    await _drain(hub, None)


def handle_sigterm(hub: LiveHub) -> None:
    """In a Hypercorn worker, drain on SIGTERM instead of dying, and when the master is told
    to stop (call it while serving; `stop_watching` when the app stops)."""
    master = hypercorn_master_pid()
    if master is None:
        return
    loop = asyncio.get_running_loop()

    def start(coroutine: Any) -> None:
        task = loop.create_task(coroutine)
        _watching.add(task)
        task.add_done_callback(_watching.discard)

    loop.add_signal_handler(signal.SIGTERM, lambda: start(_drain(hub, master)))
    event = _master_stop_event()
    if event is None:
        log.warning(
            "Hypercorn's stop event not found: SIGTERM to the master alone will not "
            "close live connections before graceful_timeout"
        )
    else:
        start(_watch(event, hub))


async def stop_watching() -> None:
    """Stop watching for the master's stop (the app is stopping)."""
    for task in list(_watching):
        task.cancel()
    await asyncio.gather(*_watching, return_exceptions=True)


async def stop_in_order(
    steps: list[tuple[str, Callable[[], Awaitable[Any]]]], seconds: float = STEP_SECONDS
) -> None:
    """Run the app's stop steps one after the other, each within `seconds`: a step that fails
    or takes too long is logged by its name (a slow one too) and the next one runs."""
    for name, step in steps:
        began = time.monotonic()
        try:
            async with asyncio.timeout(seconds):
                await step()
        except TimeoutError:
            log.warning("Stopping: %s did not finish within %g s; going on", name, seconds)
            continue
        except Exception:
            log.warning("Stopping: %s failed; going on", name, exc_info=True)
            continue
        took = time.monotonic() - began
        if took > SLOW_STEP_SECONDS:
            log.warning("Stopping: %s took %.1f s", name, took)
