"""The scale demo: a realistic volume of synthetic staff, folders and files, for load and scale
benchmarks (50 staff, 20 containers, 5,000 folders, 100,000 files by default).

`python -m tools.scale_demo [--staff N --containers N --folders N --files N
--folders-per-staff N --staff-password P]` seeds it into the configured database and storage
(the BFF_* settings, as `python -m bff` reads them). Idempotent: a second run adds nothing.
What it holds is decided in tools/scale_layout.py; this module writes it.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import TypeVar

import click

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.service import record
from bff.auth.password_rule import generated_password
from bff.cli_support import check_password, fail, load_settings_or_fail, run, with_storage
from bff.containers.models import Container, Folder
from bff.db import transaction
from bff.demo import ensure_container
from bff.files.models import StoredFile
from bff.files.names import extension_of
from bff.naming import sort_key
from bff.users.bootstrap import SYSTEM, create_user, ensure_admin
from bff.users.models import Role, User
from config.settings import Settings
from storage.base import Storage, guess_content_type
from tools.scale_layout import (
    ScaleSizes,
    assigned,
    files_of,
    scale_file,
    scale_layout,
    scale_staff,
    tiny_jpeg,
)

T = TypeVar("T")
WRITE_CONCURRENCY = 32
BATCH = 2_000
DEFAULT_SIZES = ScaleSizes()  # the realistic volume of issue 8


class _Progress:
    """Prints how far a step has got, with the time since the start."""

    def __init__(self, out: Callable[[str], None]) -> None:
        self.out = out
        self.start = time.perf_counter()

    def __call__(self, message: str) -> None:
        self.out(f"  [{time.perf_counter() - self.start:6.1f} s] {message}")


async def load_scale_demo(
    settings: Settings,
    storage: Storage,
    sizes: ScaleSizes = DEFAULT_SIZES,
    *,
    staff_password: str | None = None,
    progress: Callable[[str], None] = print,
) -> list[str]:
    """Seed the scale demo (idempotent); return lines telling a person how to sign in.

    Staff get generated passwords, shown once for the first doctor and nurse created (others:
    `python -m bff users reset-password`), unless staff_password gives all of them one.
    """
    step = _Progress(progress)
    lines = [f"Scale demo data (synthetic, no real patients): {sizes}"]
    created_admin = await ensure_admin(settings)
    if created_admin:
        username, password = created_admin
        lines.append(f"  admin {username}  password: {password or '(from BFF_ADMIN_PASSWORD)'}")
    layout = scale_layout(sizes)
    added_staff, shown = await _scale_staff(sizes, staff_password, settings.password_min_length)
    step(f"staff: {added_staff} added, {sizes.staff - added_staff} already there")
    containers, added_containers = await _scale_containers(layout, storage)
    step(f"containers: {added_containers} added")
    folder_ids, added_folders = await _scale_folders(layout, containers, storage, step)
    step(f"folders: {added_folders} added")
    added_files = await _scale_files(layout, folder_ids, storage, sizes, step)
    step(f"files: {added_files} added (written and indexed)")
    added_ca, added_fa = await _scale_assignments(sizes, layout, containers, folder_ids)
    step(f"assignments: {added_ca} container and {added_fa} folder assignments added")
    added = (added_staff, added_containers, added_folders, added_files, added_ca, added_fa)
    if any(added):
        async with transaction() as conn:
            await record(
                conn,
                SYSTEM,
                "demo_load",
                details=(
                    f"scale demo: staff={added_staff} containers={added_containers} "
                    f"folders={added_folders} files={added_files} "
                    f"assignments={added_ca}+{added_fa}"
                ),
            )
    lines.extend(shown)
    lines.append(
        f"Done in {time.perf_counter() - step.start:.1f} s. Open {settings.public_url} and sign in."
    )
    return lines


async def _scale_staff(
    sizes: ScaleSizes, staff_password: str | None, min_length: int
) -> tuple[int, list[str]]:
    usernames = [username for username, _, _ in scale_staff(sizes)]
    existing = {
        str(u) for u in await User.filter(username__in=usernames).values_list("username", flat=True)
    }
    added = 0
    shown: list[str] = []
    hidden: list[str] = []
    shown_roles = {Role.ASSISTANT}  # sign-in lines for the first doctor and nurse created
    for username, name, role in scale_staff(sizes):
        if username in existing:
            continue
        password = staff_password or generated_password(min_length)
        await create_user(name, username, role, password, min_length)
        added += 1
        if staff_password is None and role not in shown_roles:
            shown_roles.add(role)
            shown.append(f"  {role.value:<9} {username:<15} password: {password}")
        else:
            hidden.append(username)
    if staff_password is not None and added:
        shown.append(f"  {added} staff ({', '.join(usernames[:3])}, ...): the given password")
    elif hidden:
        shown.append(
            f"  {len(hidden)} more staff ({', '.join(hidden[:3])}, ...): to sign in as one, "
            "set a password with `python -m bff users reset-password --username U`"
        )
    if not added:
        shown.append(
            f"  {sizes.staff} staff exist (passwords unchanged): {', '.join(usernames[:3])}, ..."
        )
    return added, shown


async def _scale_containers(
    layout: dict[str, list[str]], storage: Storage
) -> tuple[dict[str, Container], int]:
    existing = set(await Container.filter(name__in=list(layout)).values_list("name", flat=True))
    containers = {name: await ensure_container(name, storage) for name in layout}
    return containers, len(set(layout) - existing)


async def _bounded(jobs: list[Awaitable[T]]) -> list[T]:
    """Await jobs concurrently, at most WRITE_CONCURRENCY at a time, in order."""
    gate = asyncio.Semaphore(WRITE_CONCURRENCY)

    async def one(job: Awaitable[T]) -> T:
        async with gate:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))


async def _folder_ids(containers: dict[str, Container]) -> dict[tuple[str, str], int]:
    names = {c.id: name for name, c in containers.items()}
    rows = await Folder.filter(container_id__in=list(names)).values_list(
        "container_id", "name", "id"
    )
    return {(names[c], str(f)): int(i) for c, f, i in rows}


async def _scale_folders(
    layout: dict[str, list[str]],
    containers: dict[str, Container],
    storage: Storage,
    step: Callable[[str], None],
) -> tuple[dict[tuple[str, str], int], int]:
    existing = await _folder_ids(containers)
    missing = [(c, f) for c, folders in layout.items() for f in folders if (c, f) not in existing]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        # Storage first, so a folder row never names a folder missing from storage.
        await _bounded([storage.create_folder(c, f) for c, f in batch])
        rows = []
        for container, name in batch:
            prefix, number = sort_key(name)
            rows.append(
                Folder(
                    container_id=containers[container].id,
                    name=name,
                    sort_prefix=prefix,
                    sort_number=number,
                )
            )
        async with transaction() as conn:
            await Folder.bulk_create(rows, batch_size=500, using_db=conn)
        step(f"folders: {start + len(batch)}/{len(missing)} created")
    return (await _folder_ids(containers) if missing else existing), len(missing)


async def _write_and_describe(
    storage: Storage, container: str, folder_id: int, folder: str, name: str, data: bytes
) -> StoredFile:
    """Write one file's bytes, then describe it for the index (not yet saved)."""
    content_type = guess_content_type(name) or "application/octet-stream"
    size = await storage.write(container, folder, name, _chunk(data), content_type=content_type)
    return StoredFile(
        folder_id=folder_id,
        name=name,
        content_type=content_type,
        size=size,
        last_modified=datetime.now(UTC),
        extension=extension_of(name),
    )


async def _chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _scale_files(
    layout: dict[str, list[str]],
    folder_ids: dict[tuple[str, str], int],
    storage: Storage,
    sizes: ScaleSizes,
    step: Callable[[str], None],
) -> int:
    indexed = set(
        await StoredFile.filter(folder_id__in=list(folder_ids.values())).values_list(
            "folder_id", "name"
        )
    )
    jpeg = tiny_jpeg()

    def missing() -> Iterator[tuple[str, int, str, str, bytes]]:
        for container, folders in layout.items():
            for folder in folders:
                folder_id = folder_ids[(container, folder)]
                for index in range(1, files_of(int(folder.rsplit("-", 1)[1]), sizes) + 1):
                    name, data = scale_file(folder, index, jpeg)
                    if (folder_id, name) not in indexed:
                        yield container, folder_id, folder, name, data

    jobs = missing()
    added, reported = 0, 0
    while batch := list(itertools.islice(jobs, BATCH)):
        # Bytes first, index second (as uploads do): an index row never names a partial file.
        rows = await _bounded([_write_and_describe(storage, *job) for job in batch])
        async with transaction() as conn:
            await StoredFile.bulk_create(rows, batch_size=500, using_db=conn)
        added += len(rows)
        if added - reported >= 10_000:
            step(f"files: {added} written and indexed so far")
            reported = added
    return added


async def _scale_assignments(
    sizes: ScaleSizes,
    layout: dict[str, list[str]],
    containers: dict[str, Container],
    folder_ids: dict[tuple[str, str], int],
) -> tuple[int, int]:
    usernames = [u for u, _, _ in scale_staff(sizes)]
    user_ids = dict(await User.filter(username__in=usernames).values_list("username", "id"))
    ids = list(user_ids.values())
    held_containers = set(
        await ContainerAssignment.filter(user_id__in=ids).values_list("user_id", "container_id")
    )
    held_folders = set(
        await FolderAssignment.filter(user_id__in=ids).values_list("user_id", "folder_id")
    )
    new_containers, new_folders = [], []
    for index, username in enumerate(usernames):
        user_id = user_ids[username]
        for container, folders in assigned(index, layout, sizes).items():
            container_id = containers[container].id
            if (user_id, container_id) not in held_containers:
                new_containers.append(
                    ContainerAssignment(user_id=user_id, container_id=container_id)
                )
            for folder in folders:
                folder_id = folder_ids[(container, folder)]
                if (user_id, folder_id) not in held_folders:
                    new_folders.append(FolderAssignment(user_id=user_id, folder_id=folder_id))
    async with transaction() as conn:
        await ContainerAssignment.bulk_create(new_containers, batch_size=500, using_db=conn)
        await FolderAssignment.bulk_create(new_folders, batch_size=500, using_db=conn)
    return len(new_containers), len(new_folders)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--staff", default=50, show_default=True, help="members of staff (1-999)")
@click.option("--containers", default=20, show_default=True, help="containers (1-99)")
@click.option("--folders", default=5_000, show_default=True, help="patient folders")
@click.option("--files", default=100_000, show_default=True, help="files, spread over the folders")
@click.option(
    "--folders-per-staff", default=300, show_default=True, help="folders assigned to each"
)
@click.option(
    "--staff-password", help="give every new member of staff this password (default: generated)"
)
def main(
    staff: int,
    containers: int,
    folders: int,
    files: int,
    folders_per_staff: int,
    staff_password: str | None,
) -> None:
    """Seed the scale demo into the configured database and storage (idempotent)."""
    settings = load_settings_or_fail()
    if not (1 <= staff <= 999 and 1 <= containers <= 99 and min(folders, files) >= 0):
        fail("--staff must be 1-999, --containers 1-99, the others >= 0.")
    if folders > 99_999 or files > 999 * max(folders, 1):
        fail("--folders must be at most 99999, --files at most 999 per folder.")
    if staff_password is not None:
        check_password(staff_password, settings)
    sizes = ScaleSizes(
        staff=staff,
        containers=containers,
        folders=folders,
        files=files,
        folders_per_staff=folders_per_staff,
    )

    async def work(storage: Storage) -> int:
        lines = await load_scale_demo(
            settings,
            storage,
            sizes,
            staff_password=staff_password,
            progress=click.echo,
        )
        for line in lines:
            click.echo(line)
        return 0

    run(with_storage(settings, work))


if __name__ == "__main__":
    main(prog_name="python -m tools.scale_demo")
