"""A folder's patient demographics: read (audited), changed (audited, announced live), and
imported from a CSV file."""

from __future__ import annotations

from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.assignments.repository import folder_member_ids
from bff.audit.service import Actor, record, record_alone
from bff.containers import repository
from bff.containers.service import get_folder
from bff.db import transaction
from bff.live.events import ADMINS, PATIENT_CHANGED, publish, user_room
from bff.patients.rules import Demographics, changed_fields

SAVED = "Patient details saved"
UNCHANGED = "Patient details unchanged"


def announce(container: str, folder: str, folder_id: int, by: Actor, at: datetime) -> None:
    """Tell admins and the folder's care team (worked out when the event is sent) who changed
    the patient (their display name, as the app shows users) and when (ISO 8601, UTC): an open
    page says so ("Patient details changed by ... at ...")."""

    async def rooms() -> list[str]:
        return [ADMINS, *(user_room(user_id) for user_id in await folder_member_ids(folder_id))]

    stamp = at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    payload = {"container": container, "folder": folder, "by": by.name, "at": stamp}
    publish(PATIENT_CHANGED, payload, rooms)


async def patient_details(container: str, folder: str, actor: Actor) -> Demographics:
    """A folder's patient (audited: a patient's identity is patient data)."""
    row = await get_folder(container, folder)
    await record_alone(actor, "patient_view", container=row.container.name, folder=row.name)
    return repository.patient_of(row)


async def save_patient(
    conn: BaseDBAsyncClient,
    folder: tuple[int, str, str],
    patient: Demographics,
    actor: Actor,
    how: str,
) -> list[str]:
    """Write a folder's patient (folder: id, container name, folder name) in transaction conn
    if it differs: audited with the fields that changed, like a user's change (never their
    values), and announced; the fields changed."""
    folder_id, container, name = folder
    before = repository.patient_of(await repository.folder_for_update(conn, folder_id))
    changed = changed_fields(before, patient)
    if changed:
        await repository.set_patient(conn, folder_id, patient)
        await record(
            conn,
            actor,
            "patient_update",
            container=container,
            folder=name,
            details=f"{how}: {', '.join(changed)}",
        )
        announce(container, name, folder_id, actor, datetime.now(UTC))
    return changed


async def update_patient(
    container: str, folder: str, patient: Demographics, actor: Actor
) -> tuple[Demographics, bool]:
    """Set a folder's patient (404 for an unknown folder); whether anything changed."""
    row = await get_folder(container, folder)
    async with transaction() as conn:
        where = (row.id, row.container.name, row.name)
        changed = await save_patient(conn, where, patient, actor, "edited")
    return patient, bool(changed)
