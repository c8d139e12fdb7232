"""Printing the intake's sheets (issue 51): a patient folder's cover sheet, each print with a
new random sheet id under the sheet key's MAC (sheets.py) and audited `intake_sheet_printed` in
the folder with that id, so the id a routed scan's `intake_routed` entry names traces back to who
printed the sheet and when; and the separator sheet, which names no patient.

Both PDFs are drawn in the worker pool (fpdf2 and segno take about 0.1 s a sheet), never in the
server's process. Who may print a cover sheet beyond the route's policy (a signed-in caller who
sees the folder): the staff who may upload to it (admins, doctors, nurses) and the holders of the
intake permission, whose filing a sheet does for them (`may_print`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from bff.audit.service import Actor, record, record_refusal
from bff.containers.models import Folder
from bff.containers.service import get_folder
from bff.db import transaction
from bff.errors import ApiError
from bff.intake import sheets
from bff.users.models import Role
from bff.workers import WorkerBusy, WorkerFailed, WorkerPool, WorkerTimeout

COVER_ROUTE = "GET /api/intake/cover-sheet/<container>/<folder>"
COVER_FILE_NAME = "cover-sheet.pdf"  # no patient detail in a download's name
SEPARATOR_FILE_NAME = "separator-sheet.pdf"
NOT_RECORDED = "not recorded"
PRINTERS = frozenset({Role.ADMIN, Role.DOCTOR, Role.NURSE})  # those who may upload
SHEET_SECONDS = 20.0
FORBIDDEN = "You don't have permission to do this."  # the policy's words (bff/auth/policy.py)
BUSY = "The server is busy making other documents; try printing again in a minute."
FAILED = "The sheet could not be made; try again, and tell IT if it keeps failing."


def may_print(role: str, may_intake: bool) -> bool:
    """Whether a caller who sees a folder may print its cover sheet: one who may upload to it,
    or a holder of the intake permission (a sheet files for whoever scans it)."""
    return may_intake or role in PRINTERS


def shown_birth_date(born: date | None) -> str:
    """A date of birth as printed: the month in words, so no reader takes 03/04 the wrong way
    round whatever their habit."""
    return f"{born.day} {born:%b %Y}" if born is not None else NOT_RECORDED


def _details(folder: Folder) -> tuple[str, str, str, str]:
    name = (folder.patient_name or "").strip() or NOT_RECORDED
    number = (folder.patient_record_number or "").strip() or NOT_RECORDED
    label = f"{folder.container.name} / {folder.name}"
    return name, shown_birth_date(folder.patient_birth_date), number, label


async def _drawn(workers: WorkerPool, func: Callable[..., bytes], *args: str) -> bytes:
    try:
        data = await workers.run(func, *args, seconds=SHEET_SECONDS)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": "60"}) from None
    except (WorkerTimeout, WorkerFailed):
        raise ApiError(503, FAILED) from None
    return data


async def cover_sheet(
    container: str,
    folder_name: str,
    actor: Actor,
    may_intake: bool,
    key: bytes,
    workers: WorkerPool,
) -> bytes:
    """A new cover sheet for the folder: a new sheet id, its code signed with key, the patient's
    name, date of birth and record number printed beside it ("not recorded" for those the folder
    lacks). 404 for a folder that does not exist; 403 (audited) for a caller who may neither
    upload to it nor use the intake. Audited `intake_sheet_printed` in the folder with the sheet
    id once the sheet is made, before it is handed out."""
    folder = await get_folder(container, folder_name)
    if not may_print(actor.role, may_intake):
        await record_refusal(actor, 403, COVER_ROUTE, container=container, folder=folder_name)
        raise ApiError(403, FORBIDDEN)
    sheet_id = sheets.new_sheet_id()
    payload = sheets.sign(folder.id, sheet_id, key)
    data = await _drawn(workers, sheets.cover_sheet_pdf, *_details(folder), payload)
    async with transaction() as conn:
        await record(
            conn,
            actor,
            "intake_sheet_printed",
            container=folder.container.name,
            folder=folder.name,
            details=f"sheet={sheet_id}",
        )
    return data


async def separator_sheet(workers: WorkerPool) -> bytes:
    """The separator sheet (the same for everyone; names no patient, not audited)."""
    return await _drawn(workers, sheets.separator_sheet_pdf)
