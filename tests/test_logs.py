"""config/logs.py's `shown`: how text from outside is written for a person to read (log lines,
the command line), control characters escaped; and both log formats writing every message and
traceback through it."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from config.logs import JsonFormatter, TextFormatter, shown

# An OSC sequence setting the terminal's title (what a CSV cell did to an admin's terminal),
# then a CSI clearing the screen.
RETITLE = "\x1b]0;pwned\x07\x1b[2J"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (RETITLE, "\\x1b]0;pwned\\x07\\x1b[2J"),
        ("a\x00b\x1fc", "a\\x00b\\x1fc"),  # C0
        ("line\nforged\r\tend", "line\\nforged\\r\\tend"),
        ("del\x7f", "del\\x7f"),
        ("c1\x80\x9b31m\x9f", "c1\\x80\\x9b31m\\x9f"),  # U+009B: a CSI on its own
        ("invoice\u202efdp.exe", "invoice\\u202efdp.exe"),  # right-to-left override
        ("\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d", "\\u2066\\u2067\\u2068\\u2069"
         "\\u202a\\u202b\\u202c\\u202d"),  # isolates, embeddings, overrides
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),  # bidirectional marks
        ("one\u2028two\u2029three", "one\\u2028two\\u2029three"),  # line, paragraph separators
    ],
)  # fmt: skip
def test_control_characters_are_shown_escaped(text: str, expected: str) -> None:
    assert shown(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ward-1/patient-1 (line 2): would change name",
        "José Müller, Анна Иванова, 山田太郎, محمد",
        "C:\\Users\\admin\\patients.csv",
        "no\u00a0break, zero\u200bwidth 🙂",  # printable or invisible, but acts on nothing
        "",
    ],
)
def test_everything_else_is_shown_as_it_is(text: str) -> None:
    assert shown(text) == text


def test_shown_twice_is_shown_once_and_anything_is_shown_as_text() -> None:
    assert shown(shown(RETITLE)) == shown(RETITLE)
    assert shown(ValueError("bad\x1bcell")) == "bad\\x1bcell"


def _record() -> logging.LogRecord:
    try:
        raise ValueError(f"invalid input syntax: {RETITLE}\nforged line")
    except ValueError:
        exc_info = sys.exc_info()
    return logging.LogRecord(
        "bff.test", logging.WARNING, __file__, 1, "Refused %s", (RETITLE,), exc_info
    )


def test_both_log_formats_show_a_clients_control_characters_escaped() -> None:
    """A message or a traceback carrying a client's input (a database error quoting what was
    sent) reaches neither a terminal tailing the log nor a log viewer as a control sequence,
    and cannot forge a line; the traceback keeps its own lines."""
    text = TextFormatter().format(_record())
    assert "\x1b" not in text and "\x07" not in text
    first, *rest = text.split("\n")
    assert first.endswith("Refused \\x1b]0;pwned\\x07\\x1b[2J")
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: invalid input syntax: \\x1b]0;pwned\\x07\\x1b[2J\\nforged line"

    entry = json.loads(JsonFormatter().format(_record()))
    assert entry["message"] == "Refused \\x1b]0;pwned\\x07\\x1b[2J"  # once decoded
    lines = entry["error"].split("\n")
    assert lines[-1] == "ValueError: invalid input syntax: \\x1b]0;pwned\\x07\\x1b[2J\\nforged line"


def test_a_traceback_another_handler_formatted_first_is_shown_escaped() -> None:
    record = _record()
    logging.Formatter().format(record)  # pytest's, say: caches the raw traceback on the record
    assert "\x1b" in (record.exc_text or "")
    assert "\x1b" not in TextFormatter().format(record)
