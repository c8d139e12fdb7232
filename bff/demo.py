"""A small synthetic demo: containers, patient folders with their patients (name, date of
birth, a DEMO-0NNN record number), staff of each role, and files: in every folder a scanned
referral letter, a multi-page PDF and a Word document (bff/demo_documents.py), in the first
folders sample text, CSV, RTF and PDF files and portraits.

Everything here is invented. Loading it twice changes nothing: existing users keep their
passwords, existing containers, folders, assignments, patients and files are left as they are.
Files are stored as uploads are (scanned, checked, read for search, thumbnailed).
(tools/scale_demo.py seeds a realistic volume for benchmarks from the same samples.)
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw
from tortoise.exceptions import IntegrityError

from bff.assignments import repository as assignments
from bff.auth.password_rule import generated_password
from bff.containers import repository as containers_repository
from bff.containers.models import Container, Folder
from bff.db import transaction
from bff.demo_documents import DOCUMENT_NAMES, DemoPatient, demo_patient, documents
from bff.errors import ApiError
from bff.files import repository as files
from bff.files.names import PROFILE_IMAGE_NAME
from bff.files.storing import store_file
from bff.patients.rules import Demographics
from bff.patients.service import save_patient
from bff.tokens import repository as tokens
from bff.tokens import service as token_service
from bff.tokens.schemas import AssignToken, SunTag
from bff.users import repository as users
from bff.users.bootstrap import SYSTEM, create_user, ensure_admin
from bff.users.models import Role
from config.settings import Settings
from storage.base import Storage

CONTAINERS = {
    "north-clinic": [f"patient-{n:03d}" for n in range(1, 9)],
    "south-clinic": [f"patient-{n:03d}" for n in range(101, 105)],
}
# Each folder's invented patient, record numbers DEMO-0NNN after the folder's number.
PATIENTS = {
    (container, folder): demo_patient(index, folder)
    for index, (container, folder) in enumerate(
        (container, folder) for container, folders in CONTAINERS.items() for folder in folders
    )
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
# The demo's SmartToken: a simulated NTAG 424 DNA tag (no hardware) for one patient.
DEMO_TAG_CHIP = "demo-sun-tag"
DEMO_TAG_UID = "04DE3000DE3001"
DEMO_TAG_FOLDER = ("north-clinic", "patient-001")
DEMO_TAG_PATIENT = PATIENTS[DEMO_TAG_FOLDER].name  # the folder's patient
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


async def ensure_container(name: str, storage: Storage) -> Container:
    """The container with this name, created in storage and the index when missing."""
    await storage.create_container(name)
    container, _ = await containers_repository.ensure_container(name)
    return container


async def _folder(container: Container, name: str, storage: Storage) -> Folder:
    await storage.create_folder(container.name, name)
    folder, _ = await containers_repository.ensure_folder(container, name)
    folder.container = container
    return folder


async def load_demo(
    settings: Settings, storage: Storage, served: str | None = None, python: str = "python"
) -> list[str]:
    """Load the demo; return lines telling a person how to sign in. served: the address of a
    server running on this database (bff/serving.py), where to sign in; python: the command
    that runs Python here, for the commands printed."""
    lines = ["Demo data loaded (synthetic, no real patients)."]
    created_admin = await ensure_admin(settings)
    if created_admin:
        username, password = created_admin
        lines.append(f"  admin {username}  password: {password or '(from BFF_ADMIN_PASSWORD)'}")
    containers: dict[str, Container] = {}
    folders: dict[tuple[str, str], Folder] = {}
    for container_name, folder_names in CONTAINERS.items():
        container = containers[container_name] = await ensure_container(container_name, storage)
        for index, folder_name in enumerate(folder_names):
            folder = await _folder(container, folder_name, storage)
            folders[(container_name, folder_name)] = folder
            patient = PATIENTS[(container_name, folder_name)]
            lines.extend(await _patient(folder, patient))
            await _documents(folder, patient, storage)
            if index < 5:
                await _sample_files(folder, index, storage)
    for username, name, role in STAFF:
        user = await users.user_by_username(username)
        if user is None:
            password = generated_password(settings.password_min_length)
            user = await create_user(name, username, role, password, settings.password_min_length)
            lines.append(f"  {role.value:<9} {username:<15} password: {password}")
        else:
            lines.append(f"  {role.value:<9} {username:<15} (exists; password unchanged)")
        for container_name, folder_names in ASSIGNED[username].items():
            folder_ids = [folders[(container_name, name)].id for name in folder_names]
            await assignments.ensure_assigned(user.id, containers[container_name].id, folder_ids)
    if served:
        lines.append(f"Open {served} (the server running on this database) and sign in.")
    else:
        lines.append(f"Start the server (make run), open {settings.public_url} and sign in.")
    lines.extend(await _demo_tag(settings, python))
    return lines


async def _demo_tag(settings: Settings, python: str) -> list[str]:
    """One SUN SmartToken (a simulated NTAG 424 DNA tag) given to a demo patient."""
    token = await tokens.token_by_sun_uid(DEMO_TAG_UID)
    if token is None:
        container, folder = DEMO_TAG_FOLDER
        if folder in await token_service.assigned_folders(container, SYSTEM):
            return []  # an admin gave that patient another token: leave it be
        made = await token_service.register(
            DEMO_TAG_CHIP, settings, SYSTEM, SunTag(uid=DEMO_TAG_UID)
        )
        await token_service.assign(
            AssignToken(
                tokenId=made.smartTokenId,
                containerName=container,
                folderName=folder,
                patientName=DEMO_TAG_PATIENT,
            ),
            SYSTEM,
        )
        token_id = made.smartTokenId
    else:
        token_id = token.token_id
    return [
        f"A SmartToken (SUN tag, replay-proof) opens {'/'.join(DEMO_TAG_FOLDER)} in an "
        "emergency. Tap it (each command prints a fresh tap URL):",
        f"  {python} -m bff tokens simulate-tap {token_id}",
    ]


async def _patient(folder: Folder, patient: DemoPatient) -> list[str]:
    """Give a folder its demo patient unless it has one (audited as the system's change)."""
    if not containers_repository.patient_of(folder).is_empty():
        return []
    where = (folder.id, folder.container.name, folder.name)
    demographics = Demographics(patient.name, patient.birth_date, patient.record_number)
    try:
        async with transaction() as conn:
            await save_patient(conn, where, demographics, SYSTEM, "demo")
    except (ApiError, IntegrityError) as exc:  # its record number is another folder's by now
        why = exc.message if isinstance(exc, ApiError) else "its record number is taken"
        return [f"  {folder.container.name}/{folder.name}: patient left unset ({why})"]
    return []


async def _documents(folder: Folder, patient: DemoPatient, storage: Storage) -> None:
    """A scanned letter, a multi-page PDF and a Word document, each naming the patient."""
    present = set(await files.files_by_name(folder.id))
    if present.issuperset(DOCUMENT_NAMES):
        return
    for name, data in documents(patient).items():
        if name not in present:
            await store_file(folder, name, data, storage=storage, actor=SYSTEM)


async def _sample_files(folder: Folder, index: int, storage: Storage) -> None:
    present = set(await files.files_by_name(folder.id))
    for name, data in list(SAMPLE_FILES.items())[: 2 + index % 3]:
        listed = name.removesuffix(".rtf") + ".txt" if name.endswith(".rtf") else name
        if listed not in present:
            await store_file(folder, name, data, storage=storage, actor=SYSTEM)
    if PROFILE_IMAGE_NAME not in present and index % 2 == 0:
        await store_file(
            folder, "portrait.png", _avatar(index), storage=storage, actor=SYSTEM, profile=True
        )
