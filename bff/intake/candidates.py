"""The intake suggestion's one query: the folders, in every container, whose record key is one
of a document's text (suggest.record_keys: at most suggest.MAX_KEYS, one IN on the unique
folders.patient_record_key index), and in the same query the folders whose number has no key
(duplicates from before migration 0032, as containers.repository.record_holders finds them),
kept when their number's key is one of those: such a number is two folders', evidence for
neither (suggest.py). Not scoped to a caller: intake files for the whole deployment, and only
people with the intake permission see what is suggested."""

from __future__ import annotations

from tortoise.expressions import Q

from bff.containers.models import Folder
from bff.intake.suggest import Candidate, record_keys
from bff.patients.rules import record_key


async def candidates(text: str) -> list[Candidate]:
    """The folders whose record number the text may hold (none when it holds no token)."""
    keys = record_keys(text)
    if not keys:
        return []
    wanted = set(keys)
    rows = await Folder.filter(
        Q(patient_record_key__in=keys)
        | Q(patient_record_key=None, patient_record_number__not_isnull=True)
    ).values(
        "id",
        "name",
        "container__name",
        "patient_name",
        "patient_birth_date",
        "patient_record_number",
    )
    return [
        Candidate(
            container=row["container__name"],
            folder=row["name"],
            folder_id=row["id"],
            name=row["patient_name"],
            birth_date=row["patient_birth_date"],
            record_number=row["patient_record_number"],
        )
        for row in sorted(rows, key=lambda row: row["id"])
        if record_key(row["patient_record_number"]) in wanted
    ]
