"""The intake suggestion's queries: the folders, in every container, whose record key is one
of a document's text (suggest.record_keys: at most suggest.MAX_KEYS, one IN on the unique
folders.patient_record_key index); and, only when that finds one, the folders whose number has
no key (duplicates from before migration 0032, as containers.repository.record_holders finds
them: no index reaches them, so this one reads the table) kept when their number's key is one
of the text's: such a number is two folders', evidence for neither (suggest.py); a number only
unkeyed folders hold finds none (unmatched: they are to be renumbered). Not scoped to
a caller: intake files for the whole deployment, and only people with the intake permission
see what is suggested."""

from __future__ import annotations

from typing import Any

from bff.containers.models import Folder
from bff.intake.suggest import Candidate, record_keys
from bff.patients.rules import record_key

_FIELDS = (
    "id",
    "name",
    "container__name",
    "patient_name",
    "patient_birth_date",
    "patient_record_number",
)


def _candidate(row: dict[str, Any]) -> Candidate:
    return Candidate(
        container=row["container__name"],
        folder=row["name"],
        folder_id=row["id"],
        name=row["patient_name"],
        birth_date=row["patient_birth_date"],
        record_number=row["patient_record_number"],
    )


async def candidates(text: str) -> list[Candidate]:
    """The folders whose record number the text may hold (none when it holds no token), in id
    order."""
    return await candidates_for(record_keys(text))


async def candidates_for(keys: list[str]) -> list[Candidate]:
    """The folders of these record keys (suggest.record_keys of a text, worked out in the
    worker pool by the routing: routing_work.WorkArea.keys), in id order."""
    if not keys:
        return []
    rows = await Folder.filter(patient_record_key__in=keys).values(*_FIELDS)
    if rows:
        wanted = set(keys)
        unkeyed = await Folder.filter(
            patient_record_key=None, patient_record_number__not_isnull=True
        ).values(*_FIELDS)
        rows += [row for row in unkeyed if record_key(row["patient_record_number"]) in wanted]
    return [_candidate(row) for row in sorted(rows, key=lambda row: int(row["id"]))]
