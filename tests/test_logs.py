"""config/logs.py's `shown`: how text from outside is written for a person to read (log lines,
the command line), control characters escaped; both log formats writing every message and
traceback through it; and what is written outside them: the server's entry point refusing a
setting, the command line's log records, the first admin's line."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from quart import Quart

import bff.app
from bff.app import create_app
from config.logs import JsonFormatter, TextFormatter, shown
from tests.conftest import make_settings
from tools.devserver import REPO, local_env

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


TITLE = "\x1b]0;pwned\x07"  # OSC 0: sets a terminal's title
ESCAPED = "\\x1b]0;pwned\\x07"


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - this interpreter, our own code
        [sys.executable, "-c", code],
        env=local_env(tmp_path),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_servers_entry_point_prints_a_settings_error_escaped(tmp_path: Path) -> None:
    """`hypercorn bff.asgi:app` with a setting refused before logging is configured: the one
    line (which may quote the value) escaped, exit status 2."""
    made = _python(
        "import config.settings as s\n"
        "def refused(**_):\n"
        f"    raise s.SettingsError('Invalid setting BFF_X: {ESCAPED}')\n"
        "s.load_settings = refused\n"
        "import bff.asgi\n",
        tmp_path,
    )
    assert (made.returncode, made.stderr) == (2, f"Invalid setting BFF_X: {ESCAPED}\n")


def test_the_command_lines_log_records_are_shown_escaped(tmp_path: Path) -> None:
    """A warning logged by code a command runs (`python -m bff`, whose logging is not the
    server's) reaches the terminal as Python's last resort writes it, but escaped, traceback
    included."""
    made = _python(
        "import logging, runpy, sys\n"
        "from bff.cli import cli\n"
        "@cli.command('probe')\n"
        "def probe():\n"
        "    try:\n"
        f"        raise ValueError('{ESCAPED}')\n"
        "    except ValueError:\n"
        f"        logging.getLogger('bff.probe').warning('cell %s', '{ESCAPED}', exc_info=True)\n"
        "sys.argv = ['bff', 'probe']\n"
        "runpy.run_module('bff', run_name='__main__')\n",
        tmp_path,
    )
    assert made.returncode == 0, made.stderr
    assert TITLE not in made.stderr
    lines = made.stderr.splitlines()
    assert lines[0] == f"cell {ESCAPED}"
    assert lines[1] == "Traceback (most recent call last):"
    assert lines[-1] == f"ValueError: {ESCAPED}"


async def test_the_first_admin_is_printed_escaped(
    database_url: str,
    run_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def created(settings: object) -> tuple[str, None]:
        return f"chief{TITLE}", None

    monkeypatch.setattr(bff.app, "ensure_admin", created)
    root = logging.getLogger()
    handlers = list(root.handlers)
    app: Quart = create_app(make_settings(database_url, run_dir))
    try:
        async with app.test_app():
            pass
    finally:  # not the app's handler, on this test's captured stream, for the tests after
        root.handlers[:] = handlers
    assert (
        f"Created the first admin - username: chief{ESCAPED}  password: (from BFF_ADMIN_PASSWORD)\n"
        in capsys.readouterr().err
    )
