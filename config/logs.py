"""Logging, configured once: `configure_logging(settings)` at the app's creation.

BFF_LOG_FORMAT=text (the default, for a developer) writes one readable line per record;
BFF_LOG_FORMAT=json writes one JSON object per line (time, level, logger, message, the request
id and the request's fields below) for a log collector. Hypercorn's own log goes to the same
handler (its profiles in config/ send `hypercorn.error` to the root logger); its access log is
off: the BFF logs each request itself (`bff.access`) with the route template, never the path
(it names patients, folders and files) and never the query string (it may carry signed links).

The request id: X-Request-ID from the proxy when it is a plain token of at most 64 characters,
generated otherwise; returned in the response's X-Request-ID header, on every log record of the
request and on its audit entries (`request_id()`).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from contextvars import ContextVar
from os import urandom
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from config.settings import Settings

REQUEST_ID_HEADER = "X-Request-ID"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_REQUEST_ID: ContextVar[str] = ContextVar("bff_request_id", default="")
# The fields of a request record (bff.access) that the formatters write when present.
REQUEST_FIELDS = ("route", "method", "status", "duration_ms", "user_id")


def new_request_id(sent: str | None) -> str:
    """The id of a request starting now: the proxy's X-Request-ID when it is sane, else new."""
    # 32 random hex digits: a uuid4's hex without building the UUID (a quarter of the cost).
    value = sent if sent is not None and _VALID_REQUEST_ID.fullmatch(sent) else urandom(16).hex()
    _REQUEST_ID.set(value)
    return value


def request_id() -> str:
    """The current request's id ("" outside a request: the command line, background jobs)."""
    return _REQUEST_ID.get()


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = _REQUEST_ID.get()
        return True


class _Seconds:
    """A record's time to the second, formatted once per second (every request logs one
    record, and strftime is most of a line's time stamp)."""

    def __init__(self, fmt: str, convert: Any) -> None:
        self._fmt, self._convert = fmt, convert
        self._last: tuple[int, str] = (-1, "")

    def __call__(self, created: float) -> str:
        second = int(created)
        last = self._last  # one tuple: threads that log at once read a consistent pair
        if last[0] != second:
            last = (second, time.strftime(self._fmt, self._convert(created)))
            self._last = last
        return last[1]


# json.dumps with these options builds a new encoder for every record.
_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def __init__(self) -> None:
        super().__init__()
        self._seconds = _Seconds("%Y-%m-%dT%H:%M:%S", time.gmtime)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": f"{self._seconds(record.created)}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if rid := getattr(record, "request_id", ""):
            entry["request_id"] = rid
        for field in REQUEST_FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                entry[field] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return _JSON(entry)


class TextFormatter(logging.Formatter):
    """A readable line: time, level, logger, [request id], message."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(rid)s %(message)s")
        self._seconds = _Seconds(self.default_time_format, self.converter)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        return f"{self._seconds(record.created)},{int(record.msecs):03d}"  # as logging writes it

    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", "")
        record.rid = f" [{rid}]" if rid else ""
        return super().format(record)


def configure_logging(settings: Settings) -> None:
    """Send every log record (the BFF's, its libraries', Hypercorn's) to standard error in
    the configured format. Called again (another app in the same process), it replaces its
    own handler rather than adding a second one."""
    # Neither format writes a record's thread, process, process name or asyncio task: a
    # record need not look them up (threading.current_thread(), os.getpid(), multiprocessing's
    # current process, asyncio.current_task()), on every request's access record.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging.logAsyncioTasks = False  # type: ignore[attr-defined]  # Python 3.12's taskName
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "bff", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.bff = True  # type: ignore[attr-defined]
    handler.addFilter(_RequestIdFilter())
    handler.setFormatter(JsonFormatter() if settings.log_format == "json" else TextFormatter())
    root.addHandler(handler)
    if root.level == logging.WARNING or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
