"""The intake suggestion's one query: the folders, in every container, whose record key is one
of a document's text (suggest.record_keys: at most suggest.MAX_KEYS, one IN on the unique
folders.patient_record_key index). Not scoped to a caller: intake files for the whole
deployment, and only people with the intake permission see what is suggested."""

from __future__ import annotations

from bff.containers.models import Folder
from bff.intake.suggest import Candidate, record_keys


async def candidates(text: str) -> list[Candidate]:
    """The folders whose record number the text may hold (none when it holds no token)."""
    keys = record_keys(text)
    if not keys:
        return []
    rows = await Folder.filter(patient_record_key__in=keys).values(
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
    ]
