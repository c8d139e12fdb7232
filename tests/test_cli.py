"""The command line, `python -m bff`: usage errors, help, settings, and the commands end to end
on a throwaway SQLite database. (users create, audit verify, storage reindex and tokens register
are also run beside their domains' tests.)"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from bff.cli import cli
from bff.cli_support import TextFile
from bff.naming import USERNAME_RULE
from bff.users.cli import ROLES
from bff.users.models import Role
from config.settings import load_settings
from tools.devserver import REPO, local_env

PROG = "python -m bff"
# Each command and group, with what its --help must mention.
HELP = {
    (): [
        "serve",
        "migrate",
        "users",
        "audit",
        "storage",
        "tokens",
        "folders",
        "demo",
        "web-constants",
        "backup",
        "restore",
        "search",
    ],
    ("serve",): [],
    ("migrate",): [],
    ("users",): ["create", "reset-password", "expect-sso"],
    ("users", "expect-sso"): ["USERNAMES", "--file", "--days"],
    ("users", "create"): ["--username", "--name", "--role", "admin|doctor|nurse|assistant"],
    ("users", "reset-password"): ["--username", "--password"],
    ("audit",): ["checkpoint", "verify"],
    ("audit", "checkpoint"): [],
    ("audit", "verify"): [],
    ("storage",): ["reindex"],
    ("storage", "reindex"): [],
    ("tokens",): ["register", "simulate-tap"],
    ("tokens", "register"): ["--chip", "--count", "--sun-uid", "--file-read-key", "--sun-csv"],
    ("tokens", "simulate-tap"): ["TOKEN_ID", "--counter"],
    ("folders",): ["import", "duplicates"],
    ("folders", "import"): ["CSV_FILE", "--dry-run"],
    ("folders", "duplicates"): [],
    ("demo",): [],
    ("web-constants",): [],
    ("backup",): ["LOCATION", "s3://"],
    ("restore",): ["LOCATION", "--force", "--identity"],
    ("search",): ["reindex"],
    ("search", "reindex"): ["CONTAINER", "--background"],
}


def bff(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m bff args` with everything under root (SQLite, local disk), no terminal."""
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args],
        env=local_env(root),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("args", [["nope"], ["users", "nope"], ["audit"], []])
def test_an_unknown_or_missing_command_prints_usage_and_exits_2(
    args: list[str], tmp_path: Path
) -> None:
    result = bff(tmp_path, *args)
    assert result.returncode == 2
    assert result.stderr.startswith(f"Usage: {PROG} ")
    assert result.stdout == ""
    assert not (tmp_path / "bff.sqlite3").exists()  # nothing ran (audit verify used to)


@pytest.mark.parametrize("path", list(HELP), ids=lambda path: " ".join(path) or "root")
def test_help_of_every_command_needs_no_settings(path: tuple[str, ...]) -> None:
    result = CliRunner(env={"BFF_PORT": "eighty"}).invoke(cli, [*path, "--help"], prog_name=PROG)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: {' '.join([PROG, *path])} ")
    for word in HELP[path]:
        assert word in result.output


def test_help_lists_every_command() -> None:
    assert set(cli.commands) == {name for path in HELP for name in path[:1]}


def test_the_role_choices_are_the_roles() -> None:
    assert tuple(role.value for role in Role) == ROLES


def test_a_missing_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["users", "create", "--username", "u"], prog_name=PROG)
    assert result.exit_code == 2
    assert "Missing option '--name'" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["serve"],
        ["migrate"],
        ["users", "create", "--username", "u", "--name", "N", "--role", "nurse"],
        ["users", "reset-password", "--username", "u"],
        ["audit", "verify"],
        ["storage", "reindex"],
        ["demo"],
        ["tokens", "register", "--chip", "C"],
        ["tokens", "simulate-tap", "T"],
        ["web-constants"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_every_command_fails_with_one_line_for_a_bad_setting(
    args: list[str], tmp_path: Path
) -> None:
    env = {**local_env(tmp_path), "BFF_PORT": "eighty"}
    result = CliRunner(env=env).invoke(cli, args, prog_name=PROG)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Invalid setting BFF_PORT: ")
    assert not (tmp_path / "bff.sqlite3").exists()


# Each command reading a file named on its command line, and what it says to save one as.
FILE_READERS = [
    pytest.param(("tokens", "register", "--chip", "C", "--sun-csv"), "UTF-8", id="tokens"),
    pytest.param(("folders", "import"), "CSV UTF-8", id="folders"),
]


@pytest.mark.parametrize(("command", "save_as"), FILE_READERS)
def test_a_file_that_is_not_text_is_refused_with_one_line(
    command: tuple[str, ...], save_as: str, tmp_path: Path
) -> None:
    """Not UTF-8 (Latin-1 on line 2), a NUL character, a directory, a missing file, and the
    same on standard input ('-'): one line naming the file and the line at fault, exit status
    2, never a traceback; nothing else ran."""
    env = local_env(tmp_path)
    latin = tmp_path / "latin-1.csv"
    latin.write_bytes(b"uid\nM\xfcller\n")
    nul = tmp_path / "nul.csv"
    nul.write_bytes(b"uid\n\n04\x00AB\n")
    missing = tmp_path / "missing.csv"
    refusals = {
        str(latin): f"{latin} is not UTF-8 text (line 2): save it as {save_as} and try again.",
        str(nul): f"{nul} is not a text file: it holds a NUL character (line 3).",
        str(tmp_path): f"Cannot read {tmp_path}: Is a directory.",
        str(missing): f"Cannot read {missing}: No such file or directory.",
    }
    for name, refusal in refusals.items():
        result = CliRunner(env=env).invoke(cli, [*command, name], prog_name=PROG)
        assert not isinstance(result.exception, UnicodeError), result.exception
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", refusal + "\n")
    piped = CliRunner(env=env).invoke(
        cli, [*command, "-"], input=latin.read_bytes(), prog_name=PROG
    )
    assert (piped.exit_code, piped.stderr) == (
        2,
        f"Standard input is not UTF-8 text (line 2): save it as {save_as} and try again.\n",
    )
    assert not (tmp_path / "bff.sqlite3").exists()


def _parameters(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _parameters(command, (*path, name))
        else:
            for param in command.params:
                yield " ".join((*path, name, param.name or "")), param.type


def test_every_file_a_command_reads_is_read_as_checked_text() -> None:
    """No command reads a file through click.File, whose reading ends in a UnicodeDecodeError's
    traceback on a file that is not UTF-8: TextFile (bff/cli_support.py) instead."""
    readers = {name for name, kind in _parameters(cli) if isinstance(kind, click.File)}
    assert readers == set()
    text_files = {name for name, kind in _parameters(cli) if isinstance(kind, TextFile)}
    assert text_files >= {
        "tokens register sun_csv",
        "folders import text",
        "users expect-sso listing",
    }


def test_reset_password_generates_one_or_names_a_missing_user(tmp_path: Path) -> None:
    made = bff(tmp_path, "users", "create", "--username", "Ann", "--name", "A", "--role", "nurse",
               "--password", "first-password")  # fmt: skip
    assert (made.returncode, made.stdout) == (0, "Created nurse ann\n"), made.stderr
    reset = bff(tmp_path, "users", "reset-password", "--username", "ANN")
    assert reset.returncode == 0, reset.stderr
    assert reset.stdout.startswith("Password reset for ann; 0 session(s) ended. New password: ")
    missing = bff(
        tmp_path, "users", "reset-password", "--username", "bob", "--password", "unused-new-words"
    )
    assert (missing.returncode, missing.stderr) == (1, "No user named 'bob'.\n")
    verified = bff(tmp_path, "audit", "verify")  # the creation and the reset, chained
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.startswith("Audit log intact: 2 entries verified.\n")


def test_users_create_follows_the_username_rule(tmp_path: Path) -> None:
    """The review made admins named with a Cyrillic a, with a zero-width space and as markup
    from the command line: each is refused with one line naming it (look-alikes written out),
    status 2, no traceback, nothing created; the Kelvin sign is the username's one spelling."""
    for username in ("\u0430dmin", "dr.demo\u200b", "<img src=x onerror=alert(1)>", "ab"):
        refused = bff(tmp_path, "users", "create", "--username", username, "--name", "Mallory",
                      "--role", "admin", "--password", "first-password-words")  # fmt: skip
        assert (refused.returncode, refused.stdout) == (2, ""), refused.stderr
        assert refused.stderr == f"{username!a} cannot be a username. {USERNAME_RULE}\n"
    made = bff(tmp_path, "users", "create", "--username", "\u212aATE", "--name", "Kate",
               "--role", "admin", "--password", "first-password-words")  # fmt: skip
    assert (made.returncode, made.stdout) == (0, "Created admin kate\n"), made.stderr
    verified = bff(tmp_path, "audit", "verify")  # kate's creation alone
    assert verified.stdout.startswith("Audit log intact: 1 entries verified.\n"), verified.stdout


def test_a_first_admin_username_that_breaks_the_rule_stops_the_start(tmp_path: Path) -> None:
    """BFF_ADMIN_USERNAME is checked with the settings: one line naming it, before anything
    starts (the first start would have created that admin)."""
    env = {**local_env(tmp_path), "BFF_ADMIN_USERNAME": "\u0430dmin"}
    for args in (["migrate"], ["demo"], ["users", "create", "--username", "u", "--name", "N",
                                       "--role", "nurse"]):  # fmt: skip
        result = CliRunner(env=env).invoke(cli, args, prog_name=PROG)
        assert result.exit_code == 2, result.output
        assert result.output == (
            "Invalid setting BFF_ADMIN_USERNAME: Value error, '\\u0430dmin' cannot be a "
            f"username. {USERNAME_RULE}\n"
        )
        assert not (tmp_path / "bff.sqlite3").exists()
    assert load_settings(admin_username=" \uff23hief ").admin_username == "chief"


def test_the_demo_loads_once_and_its_files_are_indexed(tmp_path: Path) -> None:
    first = bff(tmp_path, "demo")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "Demo data loaded (synthetic, no real patients)."
    assert lines[1].startswith("  admin admin  password: ")
    for username in ("dr.demo", "nurse.demo", "assistant.demo"):
        assert any(username in line and "password: " in line for line in lines)
    tap = [line.split()[-1] for line in lines if "python -m bff tokens simulate-tap" in line]
    assert len(tap) == 1
    second = bff(tmp_path, "demo")
    assert second.returncode == 0, second.stderr
    assert "password:" not in second.stdout
    assert second.stdout.count("(exists; password unchanged)") == 3
    assert f"python -m bff tokens simulate-tap {tap[0]}" in second.stdout  # the same tag
    tapped = bff(tmp_path, "tokens", "simulate-tap", tap[0])
    assert tapped.returncode == 0, tapped.stderr
    assert re.fullmatch(
        r"http://localhost:8000/patients/verify/[0-9A-F]{32}\?s=[0-9A-F]{16}\n", tapped.stdout
    )
    reindex = bff(tmp_path, "storage", "reindex")  # what the demo stored is what it indexed
    assert reindex.returncode == 0, reindex.stderr
    assert "Files added: 0\n" in reindex.stdout and "Files removed" in reindex.stdout
    assert "Files removed (no longer in storage): 0" in reindex.stdout
