"""A small synthetic demo: containers, patient folders, staff of each role, sample files.

Everything here is invented. Loading it twice changes nothing: existing users keep their
passwords, existing containers, folders, assignments and files are left as they are.
`load_scale_demo` seeds a realistic volume instead (50 staff, 20 containers, 5,000 folders,
100,000 files by default), for load and scale benchmarks.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from PIL import Image, ImageDraw

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.service import record
from bff.containers.models import Container, Folder
from bff.db import transaction
from bff.files.models import StoredFile
from bff.files.names import PROFILE_IMAGE_NAME, extension_of
from bff.files.upload import store_file
from bff.naming import sort_key
from bff.users.bootstrap import SYSTEM, create_user, ensure_admin
from bff.users.models import Role, User
from config.settings import Settings
from storage.base import Storage, guess_content_type

CONTAINERS = {
    "north-clinic": [f"patient-{n:03d}" for n in range(1, 9)],
    "south-clinic": [f"patient-{n:03d}" for n in range(101, 105)],
}
STAFF = [
    ("dr.demo", "Dr Jane Demo", Role.DOCTOR),
    ("nurse.demo", "Sam Nurse", Role.NURSE),
    ("assistant.demo", "Alex Assistant", Role.ASSISTANT),
]
# Who gets which container and folders.
ASSIGNED = {
    "dr.demo": {"north-clinic": CONTAINERS["north-clinic"][:6], "south-clinic": ["patient-101"]},
    "nurse.demo": {"north-clinic": CONTAINERS["north-clinic"][:3]},
    "assistant.demo": {"north-clinic": CONTAINERS["north-clinic"][:2]},
}
VISIT_NOTES = (
    rb"{\rtf1\ansi\deff0{\fonttbl{\f0 Helvetica;}}\f0\fs24 "
    rb"{\b Visit notes (synthetic demo data)}\par "
    rb"Patient reports mild headache for two days. No fever.\par "
    rb"Blood pressure 122/78. Advised fluids and rest; review in one week.\par }"
)
LAB_RESULTS = (
    b"Synthetic demo data - not a real patient\n"
    b"Haemoglobin: 14.1 g/dL (13.0-17.0)\n"
    b"White cells: 6.2 x10^9/L (4.0-11.0)\n"
    b"Platelets: 250 x10^9/L (150-400)\n"
)
BLOOD_PANEL = b"test,value,unit\nsodium,139,mmol/L\npotassium,4.2,mmol/L\nglucose,5.1,mmol/L\n"
MINIMAL_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R"
    b"/Resources<</Font<</F1 5 0 R>>>>>>endobj\n"
    b"4 0 obj<</Length 58>>stream\nBT /F1 14 Tf 24 70 Td (Discharge summary - demo) Tj ET\n"
    b"endstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
SAMPLE_FILES = {
    "visit-notes.rtf": VISIT_NOTES,
    "lab-results.txt": LAB_RESULTS,
    "blood-panel.csv": BLOOD_PANEL,
    "discharge-summary.pdf": MINIMAL_PDF,
}


def _avatar(seed: int) -> bytes:
    """A simple synthetic portrait: a coloured background with a head-and-shoulders shape."""
    hue = (seed * 47) % 255
    image = Image.new("RGB", (300, 300), (hue, 180, 255 - hue))
    draw = ImageDraw.Draw(image)
    draw.ellipse((100, 50, 200, 150), fill=(245, 222, 200))
    draw.ellipse((60, 170, 240, 360), fill=(70, 90, 140))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def _container(name: str, storage: Storage) -> Container:
    await storage.create_container(name)
    prefix, number = sort_key(name)
    container, _ = await Container.get_or_create(
        name=name, defaults={"sort_prefix": prefix, "sort_number": number}
    )
    return container


async def _folder(container: Container, name: str, storage: Storage) -> Folder:
    await storage.create_folder(container.name, name)
    prefix, number = sort_key(name)
    folder, _ = await Folder.get_or_create(
        container=container, name=name, defaults={"sort_prefix": prefix, "sort_number": number}
    )
    folder.container = container
    return folder


async def load_demo(settings: Settings, storage: Storage) -> list[str]:
    """Load the demo; return lines telling a person how to sign in."""
    lines = ["Demo data loaded (synthetic, no real patients)."]
    created_admin = await ensure_admin(settings)
    if created_admin:
        username, password = created_admin
        lines.append(f"  admin {username}  password: {password or '(from BFF_ADMIN_PASSWORD)'}")
    folders: dict[tuple[str, str], Folder] = {}
    for container_name, folder_names in CONTAINERS.items():
        container = await _container(container_name, storage)
        for index, folder_name in enumerate(folder_names):
            folder = await _folder(container, folder_name, storage)
            folders[(container_name, folder_name)] = folder
            if index < 5:
                await _sample_files(folder, index, storage)
    for username, name, role in STAFF:
        user = await User.get_or_none(username=username)
        if user is None:
            password = secrets.token_urlsafe(9)
            user = await create_user(name, username, role, password)
            lines.append(f"  {role.value:<9} {username:<15} password: {password}")
        else:
            lines.append(f"  {role.value:<9} {username:<15} (exists; password unchanged)")
        for container_name, folder_names in ASSIGNED[username].items():
            container = await Container.get(name=container_name)
            await ContainerAssignment.get_or_create(user=user, container=container)
            for folder_name in folder_names:
                folder = folders[(container_name, folder_name)]
                await FolderAssignment.get_or_create(user=user, folder=folder)
    lines.append(f"Open {settings.public_url} and sign in.")
    return lines


async def _sample_files(folder: Folder, index: int, storage: Storage) -> None:
    present = {
        str(n) for n in await StoredFile.filter(folder=folder).values_list("name", flat=True)
    }
    for name, data in list(SAMPLE_FILES.items())[: 2 + index % 3]:
        listed = name.removesuffix(".rtf") + ".txt" if name.endswith(".rtf") else name
        if listed not in present:
            await store_file(folder, name, data, storage=storage, actor=SYSTEM)
    if PROFILE_IMAGE_NAME not in present and index % 2 == 0:
        await store_file(
            folder, "portrait.png", _avatar(index), storage=storage, actor=SYSTEM, profile=True
        )


# The scale demo: a realistic volume of synthetic staff, folders and files, for load tests.

T = TypeVar("T")
SCALE_CONTAINER_PREFIX = "scale-clinic"
SCALE_ROLES = (Role.DOCTOR, Role.NURSE, Role.ASSISTANT, Role.NURSE)  # two nurses per doctor
FIRST_NAMES = ("Alex", "Sam", "Jo", "Chris", "Robin", "Kim", "Lee", "Max", "Pat", "Ari", "Noa")
LAST_NAMES = ("Demo", "Sample", "Example", "Placeholder", "Synthetic", "Fiction", "Mock")
SCALE_KINDS = (
    ("lab-results", "txt", LAB_RESULTS),
    ("blood-panel", "csv", BLOOD_PANEL),
    ("discharge-summary", "pdf", MINIMAL_PDF),
    ("visit-notes", "txt", LAB_RESULTS.replace(b"Haemoglobin", b"Temperature: 36.8 C\nHb")),
    ("scan", "jpg", b""),  # filled with a tiny synthetic JPEG on first use
)
WRITE_CONCURRENCY = 32
BATCH = 2_000


@dataclass(frozen=True)
class ScaleSizes:
    """How much the scale demo seeds; the defaults are the realistic volume of issue 8."""

    staff: int = 50
    containers: int = 20
    folders: int = 5_000
    files: int = 100_000
    containers_per_staff: int = 2
    folders_per_staff: int = 300


def scale_staff(sizes: ScaleSizes) -> list[tuple[str, str, Role]]:
    """(username, name, role) of the scale demo's staff, in a fixed order."""
    staff = []
    for n in range(1, sizes.staff + 1):
        role = SCALE_ROLES[(n - 1) % len(SCALE_ROLES)]
        first = FIRST_NAMES[n % len(FIRST_NAMES)]
        last = LAST_NAMES[n % len(LAST_NAMES)]
        staff.append((f"{role.value}.{n:03d}", f"{first} {last} {n:03d}", role))
    return staff


def scale_layout(sizes: ScaleSizes) -> dict[str, list[str]]:
    """Container name -> its folder names: folders dealt round-robin over the containers."""
    containers = [f"{SCALE_CONTAINER_PREFIX}-{c:02d}" for c in range(1, sizes.containers + 1)]
    layout: dict[str, list[str]] = {name: [] for name in containers}
    for n in range(1, sizes.folders + 1):
        layout[containers[(n - 1) % len(containers)]].append(f"patient-{n:05d}")
    return layout


def _files_of(folder_number: int, sizes: ScaleSizes) -> int:
    """How many files folder number n (1-based) gets, so the total is exactly sizes.files."""
    base, extra = divmod(sizes.files, max(sizes.folders, 1))
    return base + (1 if folder_number <= extra else 0)


def _scale_file(folder: str, index: int, jpeg: bytes) -> tuple[str, bytes]:
    """The name and synthetic bytes of a folder's file number index."""
    kind, ext, data = SCALE_KINDS[index % len(SCALE_KINDS)]
    if ext == "jpg":
        data = jpeg
    elif ext == "txt":
        data = data + f"Record {index} of {folder} (synthetic)\n".encode()
    return f"{kind}-{index:03d}.{ext}", data


def _tiny_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (120, 130, 140)).save(out, format="JPEG")
    return out.getvalue()


def _assigned(
    staff_index: int, layout: dict[str, list[str]], sizes: ScaleSizes
) -> dict[str, list[str]]:
    """Container -> folders assigned to the staff member at staff_index (0-based), deterministic."""
    names = list(layout)
    count = min(sizes.containers_per_staff, len(names))
    picked = [names[(staff_index * 3 + k) % len(names)] for k in range(count)]
    picked = list(dict.fromkeys(picked))
    per_container = -(-sizes.folders_per_staff // len(picked))
    result: dict[str, list[str]] = {}
    for container in picked:
        folders = layout[container]
        if not folders:
            result[container] = []
            continue
        start = (staff_index * 17) % len(folders)
        take = min(per_container, len(folders))
        result[container] = [folders[(start + k) % len(folders)] for k in range(take)]
    return result


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
    sizes: ScaleSizes = ScaleSizes(),
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
    added_staff, shown = await _scale_staff(sizes, staff_password)
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


async def _scale_staff(sizes: ScaleSizes, staff_password: str | None) -> tuple[int, list[str]]:
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
        password = staff_password or secrets.token_urlsafe(9)
        await create_user(name, username, role, password)
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
    containers = {name: await _container(name, storage) for name in layout}
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
    jpeg = _tiny_jpeg()

    def missing() -> Iterator[tuple[str, int, str, str, bytes]]:
        for container, folders in layout.items():
            for folder in folders:
                folder_id = folder_ids[(container, folder)]
                for index in range(1, _files_of(int(folder.rsplit("-", 1)[1]), sizes) + 1):
                    name, data = _scale_file(folder, index, jpeg)
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
        for container, folders in _assigned(index, layout, sizes).items():
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
