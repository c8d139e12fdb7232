"""A folder's patient demographics: read (audited), changed (audited, announced live), and
imported from a CSV file. A record number is one folder's only (compared trimmed, in any case:
rules.record_key): the check here gives the readable 409, the database's unique key
(`folders.patient_record_key`, migration 0032) refuses what two saves at once would let in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError

from bff.assignments.repository import folder_member_ids
from bff.audit import repository as audit_repository
from bff.audit.service import Actor, record, record_alone
from bff.containers import repository
from bff.containers.service import get_folder
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, PATIENT_CHANGED, publish, user_room
from bff.patients.rules import Demographics, changed_fields, record_key
from bff.users.models import Role

SAVED = "Patient details saved"
UNCHANGED = "Patient details unchanged"
TAKEN = (
    "This record number is already in another patient's folder. A record number belongs to "
    "one patient only: check it, or ask an admin which folder holds it."
)


def taken_by(holder: repository.Holder) -> str:
    """The 409 of a record number another folder holds, naming that folder (for admins, who
    may see every folder)."""
    return (
        f"This record number is already in another folder: {holder.container} / "
        f"{holder.folder}. A record number belongs to one patient only."
    )


def taken(holder: repository.Holder, actor: Actor) -> ApiError:
    """The 409 of a record number another folder holds: admins are told which folder, others
    that there is one (a folder they may not be assigned)."""
    return ApiError(409, taken_by(holder) if actor.role == Role.ADMIN else TAKEN)


def keeping_keys(wanted: dict[int, str], holders: dict[str, list[repository.Holder]]) -> set[int]:
    """Of the folders and the record number keys they are to hold, those already holding
    theirs (holders: repository.record_holders of the keys)."""
    return {
        folder_id
        for folder_id, key in wanted.items()
        if any(h.keyed and h.folder_id == folder_id for h in holders.get(key, []))
    }


async def other_holders(
    wanted: dict[int, str],
    conn: BaseDBAsyncClient | None = None,
    holders: dict[str, list[repository.Holder]] | None = None,
) -> dict[int, repository.Holder]:
    """Of the folders and the record number keys they are to hold (rules.record_key), those
    whose key a folder not among them holds, with that folder. A folder already holding its
    key clashes with nobody: the folders sharing its number without the key (since before
    migration 0032) are the ones refused. (Two folders among them wanting one key is for the
    caller to tell: the import names both lines.) holders: record_holders of the keys, if the
    caller has them."""
    if holders is None:
        holders = await repository.record_holders(set(wanted.values()), conn)
    keeping = keeping_keys(wanted, holders)
    clashes: dict[int, repository.Holder] = {}
    for folder_id, key in wanted.items():
        if folder_id in keeping:
            continue
        others = [h for h in holders.get(key, []) if h.folder_id not in wanted]
        if others:
            clashes[folder_id] = others[0]
    return clashes


def announce(container: str, folder: str, folder_id: int, by: Actor, at: datetime) -> None:
    """Tell admins and the folder's care team (worked out when the event is sent) who changed
    the patient (their display name, as the app shows users) and when (ISO 8601, UTC): an open
    page says so ("Patient details changed by ... at ...")."""

    async def rooms() -> list[str]:
        return [ADMINS, *(user_room(user_id) for user_id in await folder_member_ids(folder_id))]

    stamp = at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    payload = {"container": container, "folder": folder, "by": by.name, "at": stamp}
    publish(PATIENT_CHANGED, payload, rooms)


@dataclass(frozen=True)
class LastChange:
    """Who last changed a folder's patient (display name) and when."""

    by: str
    at: datetime


async def patient_details(
    container: str, folder: str, actor: Actor
) -> tuple[Demographics, LastChange | None]:
    """A folder's patient (audited: a patient's identity is patient data) and its last change
    (None: none on record), read from the audit log's `patient_update` entries, which record
    every change with the author and time its live event tells (`announce`)."""
    row = await get_folder(container, folder)
    await record_alone(actor, "patient_view", container=row.container.name, folder=row.name)
    where = audit_repository.AuditFilter(
        operation="patient_update", folder_of=(row.container.name, row.name)
    )
    last = await audit_repository.entries_page(where, 1)
    change = LastChange(last[0].name, last[0].timestamp) if last else None
    return repository.patient_of(row), change


async def save_patient(
    conn: BaseDBAsyncClient,
    folder: tuple[int, str, str],
    patient: Demographics,
    actor: Actor,
    how: str,
    *,
    unique_checked: bool = False,
) -> list[str]:
    """Write a folder's patient (folder: id, container name, folder name) in transaction conn
    if it differs: audited with the fields that changed, like a user's change (never their
    values), and announced; the fields changed. A record number another folder holds is a 409
    (unless the caller checked them all: unique_checked)."""
    folder_id, container, name = folder
    before = repository.patient_of(await repository.folder_for_update(conn, folder_id))
    changed = changed_fields(before, patient)
    if changed:
        key = record_key(patient.record_number)
        if key is not None and not unique_checked:
            clash = (await other_holders({folder_id: key}, conn)).get(folder_id)
            if clash is not None:
                raise taken(clash, actor)
        await repository.set_patient(conn, folder_id, patient)
        entry = await record(
            conn,
            actor,
            "patient_update",
            container=container,
            folder=name,
            details=f"{how}: {', '.join(changed)}",
        )
        # The entry's time: the one the patient's page reads back (patient_details).
        announce(container, name, folder_id, actor, entry.timestamp)
    return changed


async def update_patient(
    container: str, folder: str, patient: Demographics, actor: Actor
) -> tuple[Demographics, bool]:
    """Set a folder's patient (404 for an unknown folder); whether anything changed."""
    row = await get_folder(container, folder)
    where = (row.id, row.container.name, row.name)
    try:
        async with transaction() as conn:
            changed = await save_patient(conn, where, patient, actor, "edited")
    except IntegrityError:
        # Another save took the record number between the check and this write (the unique
        # key refused it): the same 409, naming the folder that now holds it.
        key = record_key(patient.record_number)
        clash = (await other_holders({row.id: key})).get(row.id) if key else None
        if clash is None:
            raise
        raise taken(clash, actor) from None
    return patient, bool(changed)


async def shared_numbers() -> list[tuple[repository.Holder, repository.Holder]]:
    """The folders without a record number key that share their number with another folder
    (duplicates from before migration 0032), each with a folder holding it."""
    unkeyed = await repository.unkeyed_numbers()
    pairs: list[tuple[repository.Holder, repository.Holder]] = []
    unkeyed_ids = {folder.folder_id for _, folder in unkeyed}
    holders = await repository.record_holders({record_key(n) or "" for n, _ in unkeyed})
    for number, folder in unkeyed:
        others = [h for h in holders.get(record_key(number) or "", []) if h != folder]
        # The key's holder first; else another folder without one.
        others.sort(key=lambda h: (h.folder_id in unkeyed_ids, h.folder_id))
        if others:
            pairs.append((folder, others[0]))
    return pairs
