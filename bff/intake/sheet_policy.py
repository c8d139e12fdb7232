"""Which items a verified cover sheet may file with no person involved (review #2).

A sheet is a printed page: anyone holding it, or a copy or a photo of it, can put it in front
of a document. So the sheet alone files only what came in a trusted, physical way:

- the scanner (the scan folder): filed to the sheet's folder;
- an upload: filed only if its uploader may file to that folder themselves (the same access a
  person's filing checks: an admin, or staff assigned the folder, still holding the intake
  permission); else the folder is only suggested;
- the mailbox (anyone can send mail): never filed; the folder is suggested, with the evidence
  "cover sheet <id>", for a person to confirm.

A suggestion is what suggest.py's matches are: shown with its evidence, never filed."""

from __future__ import annotations

from typing import Any

from bff.assignments.access import caller_assignments
from bff.audit.service import record
from bff.containers.models import Folder
from bff.db import transaction
from bff.intake import repository
from bff.intake.models import IntakeItem, Source
from bff.intake.service import INTAKE_ACTOR
from bff.intake.sheets import SheetCode
from bff.users.models import Role, User

FROM_MAIL = "Its cover sheet came by mail: its folder is suggested, confirm it before filing."
NOT_UPLOADERS = (
    "Its cover sheet names a folder its uploader may not file to: its folder is suggested, "
    "confirm it before filing."
)


async def _uploader_may_file(item: IntakeItem, container: str, folder: str) -> bool:
    """Whether the item's uploader may file to the folder as a person (filing._seen_folder's
    rule: admins every folder, others those assigned to them; the intake permission held)."""
    if item.received_by_id is None:
        return False
    user = await User.get_or_none(id=item.received_by_id)
    if user is None:
        return False
    if user.role == Role.ADMIN:
        return True
    if not user.intake:
        return False
    return (await caller_assignments(user.id)).has_folder(container, folder)


async def refusal(item: IntakeItem, container: str, folder: str) -> str | None:
    """None when the sheet may file the item to the folder; else the problem to show."""
    if item.source == Source.SCANNER:
        return None
    if item.source == Source.UPLOAD:
        return None if await _uploader_may_file(item, container, folder) else NOT_UPLOADERS
    return FROM_MAIL


async def suggest_folder(item: IntakeItem, folder: Folder, code: SheetCode) -> None:
    """Keep the sheet's folder as the item's suggestion (evidence: the sheet), audited
    `intake_suggested`; once: a routing taken again after its process died finds it kept."""
    said = f"cover sheet {code.sheet_id}"
    kept: dict[str, Any] = {
        "folderId": folder.id,
        "container": folder.container.name,
        "folder": folder.name,
        "evidence": [{"kind": "sheet", "start": 0, "end": 0, "text": said}],
        "excerpts": [],
    }
    async with transaction() as conn:
        if not await repository.set_suggestion(conn, item.id, kept, first=True):
            return  # filed or deleted meanwhile, or suggested by a claim before this one
        await record(
            conn,
            INTAKE_ACTOR,
            "intake_suggested",
            container=folder.container.name,
            folder=folder.name,
            details=f"item={item.id} evidence=sheet sheet={code.sheet_id}",
        )
