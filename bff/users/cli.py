"""`users create` and `users reset-password`: accounts from the command line."""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING

import click

from bff.auth.password_rule import generated_password
from bff.cli_support import (
    TextFile,
    check_password,
    echo,
    fail,
    load_settings_or_fail,
    run,
    with_db,
)

if TYPE_CHECKING:
    from config.settings import Settings

# The values of bff.users.models.Role, written out so that --help need not load the ORM
# (tests/test_cli.py checks that they match).
ROLES = ("admin", "doctor", "nurse", "assistant")
SHOWN_ONCE = "generated and shown once when omitted"
HAND_ON = (
    "username, link code, expiry: hand each code to its person privately (shown only now); "
    "they enter it once after signing in through the identity provider"
)


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


@users.command("expect-sso")
@click.argument("usernames", nargs=-1)
@click.option(
    "--file",
    "listing",
    type=TextFile(),
    help="a file of usernames, one a line ('-': standard input)",
)
@click.option(
    "--days",
    type=click.IntRange(1, 90),
    default=7,
    show_default=True,
    help="how long each link code holds",
)
def expect_sso(usernames: tuple[str, ...], listing: str | None, days: int) -> None:
    """Issue each user a one-time link code for their next sign-in through the identity
    provider (within --days; a new code replaces their earlier one; audited). Prints one line a
    user: username, code, expiry. Hand each code to its person privately: after signing in
    through the provider they enter it once, which links their account. For rolling single
    sign-on out to existing staff: docs/single-sign-on.md. Never an admin account (an admin
    links those by subject)."""
    settings = load_settings_or_fail()
    if not settings.oidc_enabled:
        fail("Single sign-on is not configured (BFF_OIDC_ISSUER).")
    names = list(usernames)
    if listing is not None:
        names += [
            line.strip()
            for line in listing.splitlines()
            if line.strip() and not line.startswith("#")
        ]
    if not names:
        fail("Give the usernames as arguments or in --file.")

    async def work() -> int:
        from bff.errors import ApiError
        from bff.naming import username_spelling
        from bff.oidc.service import expect
        from bff.users.bootstrap import SYSTEM
        from bff.users.repository import user_by_username

        failed = issued = 0
        for name in names:
            user = await user_by_username(username_spelling(name))
            if user is None:
                echo(f"{name}: no user has this username", err=True)
                failed += 1
                continue
            try:
                code, until = await expect(user.id, SYSTEM, settings.oidc_issuer, days)
            except ApiError as exc:
                echo(f"{user.username}: {exc.message}", err=True)
                failed += 1
                continue
            if not issued:
                echo(f"# {HAND_ON}")
            issued += 1
            echo(f"{user.username}  {code}  {until:%Y-%m-%d %H:%M} UTC")
        return 1 if failed else 0

    run(with_db(settings, work))
