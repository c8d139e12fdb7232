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
  same as when only the master was signalled; a second SIGTERM there changes nothing).

Serving in-process (`python -m bff serve`, `hypercorn -w 0`), Hypercorn's own handler stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal

from bff.live.server import LiveHub
from bff.metrics import hypercorn_master_pid

log = logging.getLogger(__name__)

_draining = False


def draining() -> bool:
    """Whether this process has been told to stop (readiness then fails)."""
    return _draining


async def _drain(hub: LiveHub, master: int) -> None:
    global _draining
    if _draining:
        return
    _draining = True
    log.info("SIGTERM: finishing requests in flight, closing live connections")
    with contextlib.suppress(ProcessLookupError):
        os.kill(master, signal.SIGTERM)
    closed = await hub.drain()
    log.info("Closed %d live connection(s) with a reconnect hint", closed)


def handle_sigterm(hub: LiveHub) -> None:
    """In a Hypercorn worker, drain on SIGTERM instead of dying (call it while serving)."""
    master = hypercorn_master_pid()
    if master is None:
        return
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()

    def on_sigterm() -> None:
        task = loop.create_task(_drain(hub, master))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)
