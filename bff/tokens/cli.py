"""`tokens register` and `tokens simulate-tap`: provision SmartToken devices from the command
line (static links, or NTAG 424 DNA SUN tags with their personalisation data as CSV)."""

from __future__ import annotations

import click

from bff.cli_support import TextFile, echo, fail, load_settings_or_fail, run, with_db

SUN_COLUMNS = "smartTokenId,secureChipId,uid,fileReadKey,urlTemplate,piccDataOffset,macOffset"


@click.group()
def tokens() -> None:
    """SmartToken devices."""


def _sun_tags(
    sun_uid: str | None, file_read_key: str | None, sun_csv: str | None
) -> list[tuple[str, str | None]]:
    """(uid, key or None) of each SUN tag asked for: one from the options, or a CSV batch
    (sun_csv: the file's text; one UID per line, optionally UID,KEY; blank lines and a header
    line are skipped)."""
    if sun_csv is None:
        return [(sun_uid, file_read_key)] if sun_uid else []
    tags: list[tuple[str, str | None]] = []
    for number, line in enumerate(sun_csv.splitlines(), start=1):
        cells = [cell.strip() for cell in line.split(",")]
        if not cells[0] or (number == 1 and cells[0].lower() == "uid"):
            continue
        if len(cells) > 2:
            fail(f"Line {number} of --sun-csv: expected UID or UID,KEY.")
        tags.append((cells[0], cells[1] if len(cells) == 2 and cells[1] else None))
    if not tags:
        fail("--sun-csv has no UIDs.")
    return tags


@tokens.command("register")
@click.option("--chip", required=True, help="the secure chip id (a prefix with --count/--sun-csv)")
@click.option("--count", type=int, default=1, help="provision a batch: chips ID-0001 ... ID-NNNN")
@click.option("--sun-uid", help="an NTAG 424 DNA tag's 7-byte UID (14 hex): a SUN tag")
@click.option(
    "--file-read-key", help="with --sun-uid: the tag's SDM file-read key (32 hex), else generated"
)
@click.option(
    "--sun-csv",
    type=TextFile(),
    help="a batch of SUN tags: a file with one UID (or UID,KEY) per line; chips ID-0001 ...",
)
def register_tokens(
    chip: str,
    count: int,
    sun_uid: str | None,
    file_read_key: str | None,
    sun_csv: str | None,
) -> None:
    """Register devices as unclaimed tokens; prints CSV: static links with their URLs, SUN tags
    with the personalisation data to write to each tag (a generated key appears only here)."""
    from pydantic import ValidationError

    from bff.tokens.schemas import RegisterToken, SunTag

    settings = load_settings_or_fail()
    if sun_uid and sun_csv:
        fail("Use --sun-uid or --sun-csv, not both.")
    if file_read_key and not sun_uid:
        fail("--file-read-key goes with --sun-uid.")
    if (sun_uid or sun_csv) and count != 1:
        fail("--count makes static links; a batch of SUN tags comes from --sun-csv.")
    if not 1 <= count <= 10_000:
        fail("--count must be between 1 and 10000.")
    tags = _sun_tags(sun_uid, file_read_key, sun_csv)
    batch = count if not tags else len(tags)
    chips = [chip] if batch == 1 else [f"{chip}-{n:04d}" for n in range(1, batch + 1)]
    try:
        for each in chips:
            RegisterToken(secureChipId=each)
    except ValidationError:
        fail("A chip id is 1-128 letters, digits and . _ : -")
    suns: list[SunTag | None] = []
    for uid, key in tags:
        try:
            suns.append(SunTag(uid=uid, fileReadKey=key))
        except ValidationError:
            fail(f"A tag UID is 14 hex characters and a file-read key 32: {uid!r} is not.")
    if len({tag.uid.upper() for tag in suns if tag}) != len(suns):
        fail("The same UID appears twice.")

    async def work() -> int:
        from bff.errors import ApiError
        from bff.tokens.service import register
        from bff.users.bootstrap import SYSTEM

        click.echo(SUN_COLUMNS if suns else "smartTokenId,secureChipId,verificationUrl")
        for each, tag in zip(chips, suns or [None] * len(chips), strict=True):
            try:
                made = await register(each, settings, SYSTEM, tag)
            except ApiError as exc:
                echo(exc.message, err=True)
                return 1
            if made.sun is None:
                click.echo(f"{made.smartTokenId},{made.secureChipId},{made.verificationUrl}")
            else:
                personal = made.sun
                click.echo(
                    f"{made.smartTokenId},{made.secureChipId},{personal.uid},"
                    f"{personal.fileReadKey or ''},{personal.urlTemplate},"
                    f"{personal.piccDataOffset},{personal.macOffset}"
                )
        return 0

    run(with_db(settings, work))


@tokens.command("simulate-tap")
@click.argument("token_id")
@click.option("--counter", type=int, help="the tap counter (default: one above the last accepted)")
def simulate_tap(token_id: str, counter: int | None) -> None:
    """Development and demos: print a fresh tap URL of a SUN tag registered here, as the tag
    would write it, at the address of the server running on this database if there is one.
    Refused for static-link tokens and for keys this deployment cannot open."""
    from bff.serving import as_served

    settings = as_served(load_settings_or_fail())

    async def work() -> int:
        from bff.errors import ApiError
        from bff.tokens.service import simulated_tap

        try:
            click.echo(await simulated_tap(token_id, settings, counter))
        except ApiError as exc:
            echo(exc.message, err=True)
            return 1
        return 0

    run(with_db(settings, work))
