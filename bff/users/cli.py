"""`users create` and `users reset-password`: accounts from the command line."""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING

import click

from bff.auth.password_rule import generated_password
from bff.cli_support import check_password, echo, load_settings_or_fail, run, with_db

if TYPE_CHECKING:
    from config.settings import Settings

# The values of bff.users.models.Role, written out so that --help need not load the ORM
# (tests/test_cli.py checks that they match).
ROLES = ("admin", "doctor", "nurse", "assistant")
SHOWN_ONCE = "generated and shown once when omitted"


@click.group()
def users() -> None:
    """Manage users."""


def _password(given: str | None, settings: Settings, context: tuple[str, ...]) -> tuple[str, bool]:
    """The password to set and whether it was generated (so it must be shown once)."""
    password, generated = given or "", False
    if not password and sys.stdin.isatty():
        password = getpass.getpass("Password (blank to generate one): ")
    if not password:
        password, generated = generated_password(settings.password_min_length), True
    check_password(password, settings, context)
    return password, generated


@users.command()
@click.option("--username", required=True)
@click.option("--name", required=True)
@click.option("--role", required=True, type=click.Choice(ROLES))
@click.option("--password", help=SHOWN_ONCE)
def create(username: str, name: str, role: str, password: str | None) -> None:
    """Create a user of any role."""
    settings = load_settings_or_fail()
    password, generated = _password(password, settings, (username, name))

    async def work() -> int:
        from tortoise.exceptions import IntegrityError

        from bff.errors import ApiError
        from bff.users.bootstrap import create_user
        from bff.users.models import Role

        try:
            user = await create_user(
                name, username, Role(role), password, settings.password_min_length
            )
        except ApiError as exc:  # the password rule, with the name as well as the username
            echo(exc.message, err=True)
            return 2
        except IntegrityError:
            echo(f"The username '{username}' is already taken.", err=True)
            return 1
        shown = f" with password: {password}" if generated else ""
        echo(f"Created {user.role} {user.username}{shown}")
        return 0

    run(with_db(settings, work))


@users.command("reset-password")
@click.option("--username", required=True)
@click.option("--password", help=SHOWN_ONCE)
def reset_password(username: str, password: str | None) -> None:
    """Set a new password and end all sessions."""
    settings = load_settings_or_fail()
    password, generated = _password(password, settings, (username,))

    async def work() -> int:
        from bff.errors import ApiError
        from bff.users.bootstrap import reset_password

        try:
            done = await reset_password(username, password, settings.password_min_length)
        except ApiError as exc:  # the password rule, with the user's name as well
            echo(exc.message, err=True)
            return 2
        if done is None:
            echo(f"No user named '{username}'.", err=True)
            return 1
        name, ended = done
        shown = f". New password: {password}" if generated else ""
        echo(f"Password reset for {name}; {ended} session(s) ended{shown}")
        return 0

    run(with_db(settings, work))
