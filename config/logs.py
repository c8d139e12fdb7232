"""Logging, configured once: `configure_logging(settings)` at the app's creation; and `shown`,
how text that came from outside (a request, a CSV cell, a stored name) is written for a person
to read, in a log line or on the command line.

BFF_LOG_FORMAT=text (the default, for a developer) writes one readable line per record;
BFF_LOG_FORMAT=json writes one JSON object per line (time, level, logger, message, the request
id and the request's fields below) for a log collector. Hypercorn's own log goes to the same
handler (its profiles in config/ send `hypercorn.error` to the root logger); its access log is
off: the BFF logs each request itself (`bff.access`) with the route template, never the path
(it names patients, folders and files) and never the query string (it may carry signed links).
Both formats write every record's message and traceback through `shown`, so no client's input
reaches a terminal or log viewer as a control sequence.

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
import traceback
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


# What a terminal or log viewer acts on instead of showing it: the C0 controls (ESC begins the
# sequences that retitle a terminal, move its cursor or rewrite what it shows; a line break or
# carriage return forges a line), DEL, the C1 controls (U+009B is a CSI on its own in some
# terminals), the line and paragraph separators, and the bidirectional controls, which reorder
# what a reader sees after them (embeddings, overrides, isolates and marks).
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def shown(text: object) -> str:
    """text (or str(text)) as a log line or the command line may show it: every control
    character (C0, DEL, C1, line and paragraph separators, bidirectional controls) written as
    Python writes it in a string (`\\x1b`, `\\n`, `\\u202e`), everything else as it is. Every
    message that echoes input from outside goes through here (the log formatters do it for
    every record)."""
    text = str(text)
    if text.isprintable():  # the usual case, at C speed: none of them (nor other spaces)
        return text
    return _UNSHOWN.sub(_escaped, text)


def _shown_lines(text: str) -> str:
    """Lines of text (a traceback's frames) each `shown`, the line breaks between them kept."""
    return "\n".join(map(shown, text.split("\n")))


def shown_traceback(exc_info: Any) -> str:
    """A traceback as logging writes it, `shown`: its own line breaks kept, and those of each
    exception's message (which may quote a client's input: a database error quoting a value)
    escaped, so a message cannot forge a line either."""
    formatted = traceback.TracebackException(*exc_info[:3])
    messages: set[str] = set()  # the chain's "Type: message" parts
    todo, seen = [formatted], set()
    while todo:
        each = todo.pop()
        if id(each) not in seen:
            seen.add(id(each))
            messages.update(each.format_exception_only())
            todo += [e for e in (each.__cause__, each.__context__) if e is not None]
    text = "".join(
        shown(part[:-1]) + "\n" if part in messages else _shown_lines(part)
        for part in formatted.format()
    )
    return text.removesuffix("\n")


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
            "message": shown(record.getMessage()),
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

    def formatException(self, ei: Any) -> str:
        return shown_traceback(ei)


class TextFormatter(logging.Formatter):
    """A readable line: time, level, logger, [request id], message (or what `fmt` says)."""

    def __init__(self, fmt: str = "%(asctime)s %(levelname)s %(name)s%(rid)s %(message)s") -> None:
        super().__init__(fmt)
        self._seconds = _Seconds(self.default_time_format, self.converter)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        return f"{self._seconds(record.created)},{int(record.msecs):03d}"  # as logging writes it

    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", "")
        record.rid = f" [{rid}]" if rid else ""
        if record.exc_info:  # not a traceback another handler may have formatted unshown
            record.exc_text = None
        elif record.exc_text:
            record.exc_text = _shown_lines(record.exc_text)
        return super().format(record)

    def formatMessage(self, record: logging.LogRecord) -> str:
        message = record.message
        record.message = shown(message)  # for this line only: other handlers format their own
        try:
            return super().formatMessage(record)
        finally:
            record.message = message

    def formatException(self, ei: Any) -> str:
        return shown_traceback(ei)

    def formatStack(self, stack_info: str) -> str:
        return _shown_lines(stack_info)


def configure_command_logging() -> None:
    """The command line's logging (`python -m bff`): the warnings and errors of the code a
    command runs (a storage error, a job that failed) on standard error as Python's last-resort
    handler writes them, the message then any traceback, but `shown`: its message may quote a
    file's name or a cell. (`serve` replaces it with `configure_logging`'s.)"""
    root = logging.getLogger()
    if not any(getattr(handler, "bff", False) for handler in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.bff = True  # type: ignore[attr-defined]
        handler.setFormatter(TextFormatter("%(message)s"))
        root.addHandler(handler)


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
