"""`tokens register`: provision SmartToken devices from the command line."""

from __future__ import annotations

import click

from bff.cli_support import fail, load_settings_or_fail, run, with_db


@click.group()
def tokens() -> None:
    """SmartToken devices."""


@tokens.command("register")
@click.option("--chip", required=True, help="the secure chip id (a prefix with --count)")
@click.option("--count", type=int, default=1, help="provision a batch: chips ID-0001 ... ID-NNNN")
def register_tokens(chip: str, count: int) -> None:
    """Register devices as unclaimed tokens; prints CSV with their URLs."""
    from pydantic import ValidationError

    from bff.tokens.schemas import RegisterToken

    settings = load_settings_or_fail()
    if not 1 <= count <= 10_000:
        fail("--count must be between 1 and 10000.")
    chips = [chip] if count == 1 else [f"{chip}-{n:04d}" for n in range(1, count + 1)]
    try:
        for each in chips:
            RegisterToken(secureChipId=each)
    except ValidationError:
        fail("A chip id is 1-128 letters, digits and . _ : -")

    async def work() -> int:
        from bff.errors import ApiError
        from bff.tokens.service import register
        from bff.users.bootstrap import SYSTEM

        click.echo("smartTokenId,secureChipId,verificationUrl")
        for each in chips:
            try:
                made = await register(each, settings, SYSTEM)
            except ApiError as exc:
                click.echo(exc.message, err=True)
                return 1
            click.echo(f"{made.smartTokenId},{made.secureChipId},{made.verificationUrl}")
        return 0

    run(with_db(settings, work))
