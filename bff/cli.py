"""The command line, `python -m bff`: serve, migrate, web-constants and the demo here, and each
domain's commands (users, audit, storage, tokens, folders, backup and restore) from its own cli.py,
registered below."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bff.audit.cli import audit
from bff.backup.cli import backup, restore
from bff.cli_support import echo, fail, load_settings_or_fail, run, this_python, with_storage
from bff.files.cli import storage
from bff.patients.cli import folders
from bff.search.cli import search
from bff.serving import served_url, serving
from bff.tokens.cli import tokens
from bff.users.cli import users

if TYPE_CHECKING:
    from storage.base import Storage

HYPERCORN_CONFIG = Path(__file__).resolve().parent.parent / "config" / "hypercorn.toml"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Patient-records portal: serve it, migrate its database, and administer it.

    Every command reads the BFF_* settings; an invalid one ends it with one line and exit
    status 2.
    """


@cli.command()
def serve() -> None:
    """Apply migrations and serve the app."""
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    from bff.app import create_app
    from bff.db import migrate
    from bff.live.patches import PatchVersionError, apply_loop
    from bff.live.server import asgi_app

    settings = load_settings_or_fail()
    try:  # before anything is changed: a live patch written for another version stops it here
        apply_loop(settings.live_tuning, settings.live_patches_force)  # as bff/asgi.py does
        app = asgi_app(create_app(settings))
    except PatchVersionError as exc:
        fail(str(exc))
    asyncio.run(migrate(settings))
    config = Config.from_toml(HYPERCORN_CONFIG)
    config.bind = [f"{settings.host}:{settings.port}"]
    # Listening here, before var/serving.json names this server: a port in use ends it first.
    # Bound alone is not enough: two sockets that allow address reuse (Hypercorn's do) both
    # bind one port until one of them listens, so a second server started at the same moment
    # passed, wrote its record over the first's, and failed later with a traceback.
    try:
        listening = config.create_sockets()
        for sock in [*listening.secure_sockets, *listening.insecure_sockets]:
            sock.listen(config.backlog)
    except OSError as exc:
        fail(f"Cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}.", code=1)
    bound = [f"fd://{sock.detach()}" for sock in listening.secure_sockets]
    config.insecure_bind = [f"fd://{sock.detach()}" for sock in listening.insecure_sockets]
    config.bind = bound if config.ssl_enabled else config.insecure_bind
    echo(f"Patient records portal: {settings.public_url}", err=True)
    with serving(settings):  # where this server is, for commands run beside it (the demo)
        asyncio.run(serve(app, config))


@cli.command()
def migrate() -> None:
    """Apply database migrations."""
    from bff.db import migrate

    settings = load_settings_or_fail()
    asyncio.run(migrate(settings))
    click.echo("Database is up to date.")


@cli.command()
def demo() -> None:
    """Load a small synthetic demo (containers, patients, staff, files), with or without the
    server running on the same database."""
    settings = load_settings_or_fail()

    async def work(files: Storage) -> int:
        from bff.demo import load_demo

        lines = await load_demo(settings, files, served=served_url(settings), python=this_python())
        for line in lines:
            click.echo(line)
        return 0

    run(with_storage(settings, work))


@cli.command("web-constants")
def web_constants() -> None:
    """Print live event names and audit operations as TypeScript."""
    from bff.webconstants import typescript

    load_settings_or_fail()
    click.echo(typescript(), nl=False)


for group in (users, audit, storage, tokens, folders, backup, restore, search):
    cli.add_command(group)
