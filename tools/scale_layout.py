"""What the scale demo (tools/scale_demo.py) holds, decided without the database: its staff,
containers and folders, each folder's synthetic files, and who is assigned where. Pure and
deterministic, so a second run finds the same names and adds nothing.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from bff.demo import BLOOD_PANEL, LAB_RESULTS, MINIMAL_PDF
from bff.users.models import Role

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


def files_of(folder_number: int, sizes: ScaleSizes) -> int:
    """How many files folder number n (1-based) gets, so the total is exactly sizes.files."""
    base, extra = divmod(sizes.files, max(sizes.folders, 1))
    return base + (1 if folder_number <= extra else 0)


def scale_file(folder: str, index: int, jpeg: bytes) -> tuple[str, bytes]:
    """The name and synthetic bytes of a folder's file number index."""
    kind, ext, data = SCALE_KINDS[index % len(SCALE_KINDS)]
    if ext == "jpg":
        data = jpeg
    elif ext == "txt":
        data = data + f"Record {index} of {folder} (synthetic)\n".encode()
    return f"{kind}-{index:03d}.{ext}", data


def tiny_jpeg() -> bytes:
    """A 16x16 grey JPEG: the scan files' bytes."""
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (120, 130, 140)).save(out, format="JPEG")
    return out.getvalue()


def assigned(
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
