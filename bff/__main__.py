"""Command line: serve, migrate, users, audit verify.

python -m bff serve                      migrate, then serve on BFF_HOST:BFF_PORT
python -m bff migrate                    apply database migrations
python -m bff users create --username U --name N --role R [--password P]
python -m bff users reset-password --username U [--password P]
python -m bff audit verify               check the audit log's hash chain
python -m bff storage reindex            rebuild the file index from what storage holds
python -m bff demo                       load a small synthetic demo (idempotent)
python -m bff demo --scale [--staff N --containers N --folders N --files N
                                 --folders-per-staff N]
                                         seed a realistic volume for benchmarks (idempotent)
python -m bff web-constants              print the names shared with the web app (TypeScript)
python -m bff tokens register --chip ID [--count N]
                                         register SmartTokens, print their verification URLs
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from config.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from storage.base import Storage


class _TooShort(Exception):
    pass


def _password(given: str | None) -> tuple[str, bool]:
    """The password to set and whether it was generated (so it must be shown once)."""
    from bff.users.service import MIN_PASSWORD

    password, generated = given or "", False
    if not password and sys.stdin.isatty():
        password = getpass.getpass("Password (blank to generate one): ")
    if not password:
        password, generated = secrets.token_urlsafe(18), True
    if len(password) < MIN_PASSWORD:
        raise _TooShort(f"The password must be at least {MIN_PASSWORD} characters.")
    return password, generated


async def _with_db(settings: Settings, work: Callable[[], Awaitable[int]]) -> int:
    from bff.db import close_db, init_db, migrate

    await migrate(settings)
    await init_db(settings)
    try:
        return await work()
    finally:
        await close_db()


async def _users_create(settings: Settings, args: argparse.Namespace) -> int:
    from bff.users.bootstrap import create_user
    from bff.users.models import Role, User

    password, generated = _password(args.password)

    async def work() -> int:
        if await User.exists(username=args.username.lower()):
            print(f"The username '{args.username}' is already taken.", file=sys.stderr)
            return 1
        user = await create_user(args.name, args.username, Role(args.role), password)
        print(
            f"Created {user.role} {user.username}"
            + (f" with password: {password}" if generated else "")
        )
        return 0

    return await _with_db(settings, work)


async def _users_reset(settings: Settings, args: argparse.Namespace) -> int:
    from bff.audit.service import record
    from bff.auth.passwords import hash_password
    from bff.auth.sessions import end_all_sessions
    from bff.db import transaction
    from bff.users.bootstrap import SYSTEM
    from bff.users.models import User

    password, generated = _password(args.password)

    async def work() -> int:
        user = await User.get_or_none(username=args.username.lower())
        if user is None:
            print(f"No user named '{args.username}'.", file=sys.stderr)
            return 1
        user.password_hash = await hash_password(password)
        async with transaction() as conn:
            await user.save(using_db=conn, update_fields=["password_hash", "updated_at"])
            ended = await end_all_sessions(user.id, conn)
            await record(conn, SYSTEM, "password_reset", details=f"user={user.username}")
        print(
            f"Password reset for {user.username}; {ended} session(s) ended"
            + (f". New password: {password}" if generated else "")
        )
        return 0

    return await _with_db(settings, work)


async def _audit_verify(settings: Settings) -> int:
    from bff.audit.service import verify_chain

    async def work() -> int:
        count, broken = await verify_chain()
        if broken:
            print(
                f"Audit log BROKEN at entry {broken.entry_id}: {broken.reason} "
                f"({count} entries checked)."
            )
            return 1
        print(f"Audit log intact: {count} entries verified.")
        return 0

    return await _with_db(settings, work)


async def _with_storage(settings: Settings, work: Callable[[Storage], Awaitable[int]]) -> int:
    from storage import open_storage

    async with open_storage(settings.storage_url) as storage:
        return await _with_db(settings, lambda: work(storage))


async def _storage_reindex(settings: Settings) -> int:
    from bff.files.reindex import reindex

    async def work(storage: Storage) -> int:
        print("Reindexing storage ...", flush=True)
        for line in (await reindex(storage)).lines():
            print(line)
        return 0

    return await _with_storage(settings, work)


async def _demo(settings: Settings, args: argparse.Namespace) -> int:
    from bff.demo import ScaleSizes, load_demo, load_scale_demo

    async def work(storage: Storage) -> int:
        if args.scale:
            sizes = ScaleSizes(
                staff=args.staff,
                containers=args.containers,
                folders=args.folders,
                files=args.files,
                folders_per_staff=args.folders_per_staff,
            )
            lines = await load_scale_demo(
                settings,
                storage,
                sizes,
                staff_password=args.staff_password,
                progress=lambda line: print(line, flush=True),
            )
        else:
            lines = await load_demo(settings, storage)
        for line in lines:
            print(line)
        return 0

    return await _with_storage(settings, work)


async def _tokens_register(settings: Settings, chip: str, count: int) -> int:
    from pydantic import ValidationError

    from bff.errors import ApiError
    from bff.tokens.schemas import RegisterToken
    from bff.tokens.service import register
    from bff.users.bootstrap import SYSTEM

    chips = [chip] if count == 1 else [f"{chip}-{n:04d}" for n in range(1, count + 1)]
    try:
        for each in chips:
            RegisterToken(secureChipId=each)
    except ValidationError:
        print("A chip id is 1-128 letters, digits and . _ : -", file=sys.stderr)
        return 2

    async def work() -> int:
        print("smartTokenId,secureChipId,verificationUrl")
        for each in chips:
            try:
                made = await register(each, settings, SYSTEM)
            except ApiError as exc:
                print(exc.message, file=sys.stderr)
                return 1
            print(f"{made.smartTokenId},{made.secureChipId},{made.verificationUrl}")
        return 0

    return await _with_db(settings, work)


async def _migrate(settings: Settings) -> int:
    from bff.db import migrate

    await migrate(settings)
    print("Database is up to date.")
    return 0


def _serve(settings: Settings) -> int:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    from bff.app import create_app
    from bff.db import migrate
    from bff.live.server import asgi_app

    asyncio.run(migrate(settings))
    config = Config.from_toml(Path(__file__).resolve().parent.parent / "config" / "hypercorn.toml")
    config.bind = [f"{settings.host}:{settings.port}"]
    print(f"Patient records portal: {settings.public_url}", file=sys.stderr, flush=True)
    asyncio.run(serve(asgi_app(create_app(settings)), config))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bff",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="apply migrations and serve the app")
    sub.add_parser("migrate", help="apply database migrations")
    users = sub.add_parser("users", help="manage users").add_subparsers(
        dest="action", required=True
    )
    create = users.add_parser("create", help="create a user of any role")
    create.add_argument("--username", required=True)
    create.add_argument("--name", required=True)
    create.add_argument("--role", required=True, choices=["admin", "doctor", "nurse", "assistant"])
    create.add_argument("--password", help="generated and shown once when omitted")
    reset = users.add_parser("reset-password", help="set a new password and end all sessions")
    reset.add_argument("--username", required=True)
    reset.add_argument("--password", help="generated and shown once when omitted")
    audit = sub.add_parser("audit", help="audit log tools").add_subparsers(
        dest="action", required=True
    )
    audit.add_parser("verify", help="verify the audit log's hash chain")
    storage = sub.add_parser("storage", help="file storage tools").add_subparsers(
        dest="action", required=True
    )
    storage.add_parser("reindex", help="rebuild the file index from what storage holds")
    demo = sub.add_parser("demo", help="load a small synthetic demo (containers, staff, files)")
    demo.add_argument(
        "--scale", action="store_true", help="seed a realistic volume instead (for benchmarks)"
    )
    demo.add_argument("--staff", type=int, default=50, help="with --scale (default 50)")
    demo.add_argument("--containers", type=int, default=20, help="with --scale (default 20)")
    demo.add_argument("--folders", type=int, default=5_000, help="with --scale (default 5000)")
    demo.add_argument("--files", type=int, default=100_000, help="with --scale (default 100000)")
    demo.add_argument(
        "--folders-per-staff", type=int, default=300, help="with --scale (default 300)"
    )
    demo.add_argument(
        "--staff-password",
        help="with --scale: give every new staff member this password (default: generated)",
    )
    sub.add_parser(
        "web-constants", help="print live event names and audit operations as TypeScript"
    )
    tokens = sub.add_parser("tokens", help="SmartToken devices").add_subparsers(
        dest="action", required=True
    )
    token_register = tokens.add_parser(
        "register", help="register devices as unclaimed tokens; prints CSV with their URLs"
    )
    token_register.add_argument(
        "--chip", required=True, help="the secure chip id (a prefix with --count)"
    )
    token_register.add_argument(
        "--count", type=int, default=1, help="provision a batch: chips ID-0001 ... ID-NNNN"
    )
    args = parser.parse_args(argv)

    try:
        settings = load_settings()
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "serve":
        return _serve(settings)
    if args.command == "migrate":
        return asyncio.run(_migrate(settings))
    if args.command == "users":
        handler = _users_create if args.action == "create" else _users_reset
        try:
            return asyncio.run(handler(settings, args))
        except _TooShort as exc:
            print(exc, file=sys.stderr)
            return 2
    if args.command == "storage":
        return asyncio.run(_storage_reindex(settings))
    if args.command == "demo":
        from bff.users.service import MIN_PASSWORD

        counts = (args.staff, args.containers, args.folders, args.files)
        if not (1 <= args.staff <= 999 and 1 <= args.containers <= 99 and min(counts) >= 0):
            print("--staff must be 1-999, --containers 1-99, the others >= 0.", file=sys.stderr)
            return 2
        if args.folders > 99_999 or args.files > 999 * max(args.folders, 1):
            print(
                "--folders must be at most 99999, --files at most 999 per folder.", file=sys.stderr
            )
            return 2
        if args.staff_password is not None and len(args.staff_password) < MIN_PASSWORD:
            print(f"The password must be at least {MIN_PASSWORD} characters.", file=sys.stderr)
            return 2
        return asyncio.run(_demo(settings, args))
    if args.command == "web-constants":
        from bff.webconstants import typescript

        print(typescript(), end="")
        return 0
    if args.command == "tokens":
        if not 1 <= args.count <= 10_000:
            print("--count must be between 1 and 10000.", file=sys.stderr)
            return 2
        return asyncio.run(_tokens_register(settings, args.chip, args.count))
    return asyncio.run(_audit_verify(settings))


if __name__ == "__main__":
    raise SystemExit(main())
