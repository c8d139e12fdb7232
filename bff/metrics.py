"""Prometheus metrics: every counter, gauge and histogram of the BFF, and GET /metrics's body.

Code elsewhere calls the small functions below from its single choke points (the request
hooks, the error handler, the live hub, the audit writer); nothing else imports
prometheus_client.

Several Hypercorn workers: each worker is a separate process with its own counters, and a
scrape reaches one of them. prometheus_client's multiprocess mode keeps every worker's values
in files of one directory and sums them at each scrape. It is on whenever the process is a
worker that Hypercorn spawned (or PROMETHEUS_MULTIPROC_DIR is set; Linux: the parent is
recognised by its command line): the directory is
BFF_VAR_DIR/metrics/<Hypercorn's process id>, so a restart starts from zero and the
directories of servers that are gone are removed.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
from pathlib import Path
from typing import Any

from bff.workers import process_alive

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _is_hypercorn(pid: int) -> bool:
    """Whether process pid runs Hypercorn (not, say, a test that spawned a conversion worker)."""
    try:
        return b"hypercorn" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def hypercorn_master_pid() -> int | None:
    """The process id of the Hypercorn master that spawned this process as a worker, or None
    (serving in-process: `python -m bff serve`, `hypercorn -w 0`, tests)."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None or not _is_hypercorn(parent.pid):
        return None
    return parent.pid


def _multiprocess_dir() -> str | None:
    """The directory shared by this server's workers, chosen before prometheus_client loads
    (it reads the variable when it is imported)."""
    if os.environ.get(MULTIPROC_ENV):
        return os.environ[MULTIPROC_ENV]
    master = hypercorn_master_pid()
    if master is None:
        return None  # one process: in-memory values
    root = Path(os.environ.get("BFF_VAR_DIR", "var")) / "metrics"
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.iterdir():  # servers that are gone
        pid = int(stale.name) if stale.name.isdigit() else None
        if pid is not None and pid != master and not process_alive(pid):
            shutil.rmtree(stale, ignore_errors=True)
    path = root / str(master)
    path.mkdir(exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    return str(path)


MULTIPROCESS_DIR = _multiprocess_dir()

# Imported only now: prometheus_client picks its value class from the environment at import.
from prometheus_client import (  # noqa: E402
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)

values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]  # in case something imported it earlier

REQUESTS = Counter(
    "bff_http_requests_total",
    "HTTP requests answered, by route template, method and status.",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "bff_http_request_duration_seconds",
    "Time from a request's arrival to its response headers, by route template.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
UPLOAD_BYTES = Counter("bff_upload_bytes_total", "Bytes of files stored by uploads.")
VIEW_BYTES = Counter(
    "bff_view_bytes_total",
    "Bytes of files the BFF streamed to viewers (offloaded views are sent by nginx or S3).",
)
LIVE_CONNECTIONS = Gauge(
    "bff_live_connections",
    "Live (Socket.IO) connections open now.",
    multiprocess_mode="livesum",
)
LIVE_EVENTS = Counter(
    "bff_live_events_sent_total", "Live events handed to Socket.IO, by event.", ["event"]
)
LIVE_EVENT_FAILURES = Counter(
    "bff_live_events_failed_total", "Live events that could not be sent (e.g. Redis down)."
)
LIVE_DELIVERIES = Counter(
    "bff_live_deliveries_total",
    "Live events delivered to this process's connections, by how: written to the connection's"
    " websocket at once (direct), or queued for its writer (queued: long-polling, a slow reader,"
    " or the direct path unavailable).",
    ["path"],
)
LIVE_UNCONNECTED = Counter(
    "bff_live_unconnected_total",
    "Live connections that did not connect with a session: closed for not connecting within"
    " BFF_LIVE_CONNECT_SECONDS (late), or refused because their address had"
    " BFF_LIVE_UNCONNECTED_PER_ADDRESS such connections open in the process (crowded).",
    ["reason"],
)
LIVE_DELIVERY_SECONDS = Histogram(
    "bff_live_delivery_seconds",
    "Time from a live event's sending to the last of this process's connections it reaches"
    " having it (written to the connection's websocket or queued for its writer): one"
    " observation per event and process, so a fan-out to thousands of tabs shows its length.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
AUDIT_BATCH = Histogram(
    "bff_audit_batch_entries",
    "Entries written together by the audit writer (reads and refusals).",
    buckets=(1, 2, 5, 10, 20, 50, 100, 200),
)
AUDIT_LATENCY = Histogram(
    "bff_audit_write_seconds",
    "Time to write one audit batch (lock, chain, insert, commit).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
AUDIT_FAILURES = Counter(
    "bff_audit_write_failures_total",
    "Audit batches that could not be written (their requests were answered with an error).",
)
THROTTLED = Counter(
    "bff_throttle_refusals_total", "Requests refused with 429, by route template.", ["route"]
)
EMERGENCY = Counter(
    "bff_emergency_grants_total",
    "Emergency access: grants opened and attempts refused.",
    ["outcome"],
)
SESSION_CACHE = Counter(
    "bff_session_cache_lookups_total",
    "Session cache lookups, by result (hit or miss).",
    ["result"],
)
REDIS_LINK = Gauge(
    "bff_redis_link_up",
    "1 while this process hears the other processes through Redis, 0 while it does not.",
    multiprocess_mode="min",
)

SEARCHES_RUNNING = Gauge(
    "bff_searches_running",
    "Searches holding one of their process's turns now (at most 2 each: "
    "bff/search/repository/reading.py), reading the database or about to.",
    multiprocess_mode="livesum",
)
SEARCH_CONNECTIONS = Gauge(
    "bff_search_connections",
    "SQLite: the searches' own connections open now, idle ones kept for the next search "
    "included. A search cut off (its client gone) closes its connection, which ends only once "
    "the statement it ran has stopped.",
    multiprocess_mode="livesum",
)

JOB_BACKLOG = Gauge(
    "bff_file_jobs_backlog",
    "Background jobs on files (text for search, ...) not finished yet (pending or running), "
    "by kind: read from the database by each serving process.",
    ["kind"],
    multiprocess_mode="livemostrecent",
)
JOBS_FINISHED = Counter(
    "bff_file_jobs_total",
    "Background jobs on files that ended, by kind and outcome (done, failed for good, retry: "
    "failed and due again later).",
    ["kind", "outcome"],
)
TEXT_PAGE_SECONDS = Histogram(
    "bff_text_seconds_per_page",
    "Seconds spent reading the text of one page (a file's time over its pages), by source: "
    "its text layer or stored text (text), or OCR (ocr).",
    ["source"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 60),
)

SCANS = Counter(
    "bff_scans_total",
    "Malware scans of new content by clamd (bff/scan/), by result: clean, infected, or "
    "unavailable (clamd not reached, too slow, an error, or the file over BFF_SCAN_MAX_MB).",
    ["result"],
)
SCAN_SECONDS = Histogram(
    "bff_scan_seconds",
    "Seconds from a scan's start (its first chunk sent to clamd) to clamd's answer.",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
QUARANTINED = Counter(
    "bff_quarantined_total", "Content the malware scanner found and kept in quarantine."
)

# The labelled children of the request metrics, by (route, method, status): `labels()` takes a
# lock and builds its key on every call, and every request records two of them. As many
# entries as the metrics' own children (routes x methods x statuses answered).
_REQUEST_CHILDREN: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def request_done(route: str, method: str, status: int, seconds: float) -> None:
    """One answered HTTP request (route: the URL rule, never the path with its names)."""
    key = (route, method, status)
    children = _REQUEST_CHILDREN.get(key)
    if children is None:
        children = REQUESTS.labels(route, method, str(status)), LATENCY.labels(route, method)
        _REQUEST_CHILDREN[key] = children
    children[0].inc()
    children[1].observe(seconds)
    if status == 429:
        THROTTLED.labels(route).inc()


def searches_running(change: int) -> None:
    """A search took a turn (+1) or gave it back (-1)."""
    SEARCHES_RUNNING.inc(change)


def search_connections(change: int) -> None:
    """A search connection (SQLite) opened (+1) or has closed (-1)."""
    SEARCH_CONNECTIONS.inc(change)


def live_connections(change: int) -> None:
    """A live connection opened (+1) or closed (-1)."""
    LIVE_CONNECTIONS.inc(change)


def live_event(event: str, sent: bool) -> None:
    """A live event handed to Socket.IO (sent) or given up."""
    if sent:
        LIVE_EVENTS.labels(event).inc()
    else:
        LIVE_EVENT_FAILURES.inc()


def live_deliveries(direct: int, queued: int) -> None:
    """One event's deliveries in this process, written at once or queued."""
    if direct:
        LIVE_DELIVERIES.labels("direct").inc(direct)
    if queued:
        LIVE_DELIVERIES.labels("queued").inc(queued)


def live_unconnected(reason: str) -> None:
    """A live connection closed for not connecting in time ("late") or refused ("crowded")."""
    LIVE_UNCONNECTED.labels(reason).inc()


def live_delivered(seconds: float) -> None:
    """One event delivered to every recipient of this process, `seconds` after it was sent."""
    LIVE_DELIVERY_SECONDS.observe(seconds)


def audit_batch(entries: int, seconds: float, failed: bool) -> None:
    """One batch of the audit writer."""
    AUDIT_BATCH.observe(entries)
    AUDIT_LATENCY.observe(seconds)
    if failed:
        AUDIT_FAILURES.inc()


def emergency(outcome: str) -> None:
    """An emergency grant opened ("opened") or an attempt refused ("refused")."""
    EMERGENCY.labels(outcome).inc()


_SESSION_CACHE_CHILDREN: dict[bool, Any] = {}


def session_cache(hit: bool) -> None:
    """A session looked up in the session cache (on every signed-in request: its child is
    looked up once, as the request metrics' are)."""
    child = _SESSION_CACHE_CHILDREN.get(hit)
    if child is None:
        child = _SESSION_CACHE_CHILDREN[hit] = SESSION_CACHE.labels("hit" if hit else "miss")
    child.inc()


def redis_link(up: bool) -> None:
    """The Redis link of this process came up or went down."""
    REDIS_LINK.set(1 if up else 0)


def job_backlog(counts: dict[str, int]) -> None:
    """The jobs not finished yet, by kind (every kind, 0 included)."""
    for kind, count in counts.items():
        JOB_BACKLOG.labels(kind).set(count)


def job_finished(kind: str, outcome: str) -> None:
    """A background job on a file ended: "done", "failed" (for good) or "retry"."""
    JOBS_FINISHED.labels(kind, outcome).inc()


def text_pages(source: str, pages: int, seconds: float) -> None:
    """A file's text read: `pages` pages from `source` ("text" or "ocr") in `seconds`."""
    if pages > 0:
        for _ in range(pages):
            TEXT_PAGE_SECONDS.labels(source).observe(seconds / pages)


def scanned(result: str, seconds: float) -> None:
    """A malware scan ended: "clean", "infected" or "unavailable", after seconds."""
    SCANS.labels(result).inc()
    SCAN_SECONDS.observe(seconds)


def quarantined() -> None:
    """Content was kept in quarantine."""
    QUARANTINED.inc()


def exposition() -> tuple[bytes, str]:
    """The current values in Prometheus's text format (every worker's, summed) and its
    content type."""
    if MULTIPROCESS_DIR is None:
        from prometheus_client import REGISTRY

        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    registry = CollectorRegistry()
    with contextlib.suppress(FileNotFoundError):  # a worker's file removed while read
        multiprocess.MultiProcessCollector(registry, path=MULTIPROCESS_DIR)  # type: ignore[no-untyped-call]
    return generate_latest(registry), CONTENT_TYPE_LATEST
