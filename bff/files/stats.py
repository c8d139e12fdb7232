"""File statistics of the caller's assigned folders, counted by the database in one pass, and
the caller's folders across containers searched and paged with their statistics."""

from __future__ import annotations

from bff.assignments.access import caller_assignments
from bff.audit.service import Actor, listing_details, record_alone
from bff.containers import repository as containers
from bff.files import repository
from bff.files.schemas import FolderStats, MyFoldersResponse, MyStatsResponse, SummaryStats
from bff.files.service import may_see
from bff.naming import sort_key
from bff.patients.schemas import PatientDetails
from bff.scan.service import HELD


def _by_count(types: dict[str, int]) -> dict[str, int]:
    return dict(sorted(types.items(), key=lambda kv: (-kv[1], kv[0])))


async def my_stats(user_id: int, actor: Actor) -> MyStatsResponse:
    """File counts over the caller's assigned folders, in the order of my-assignments (the
    files actor may see: `may_see`)."""
    assigned = await repository.assigned_folders_of(user_id)
    per_folder: dict[int, dict[str, int]] = {}
    total: dict[str, int] = {}
    for item in await repository.file_counts_of(user_id, held=may_see(HELD, actor)):
        per_folder.setdefault(item["folder_id"], {})[item["extension"]] = item["n"]
        total[item["extension"]] = total.get(item["extension"], 0) + item["n"]
    ordered = sorted(
        assigned,
        key=lambda a: (
            *sort_key(a["container"]),
            a["container"],
            *sort_key(a["folder"]),
            a["folder"],
        ),
    )
    folders = [
        FolderStats(
            containerName=a["container"],
            folderName=a["folder"],
            totalFiles=sum(per_folder.get(a["folder_id"], {}).values()),
            fileTypes=_by_count(per_folder.get(a["folder_id"], {})),
        )
        for a in ordered
    ]
    containers = len((await caller_assignments(user_id)).containers)
    return MyStatsResponse(
        summary=SummaryStats(
            totalFiles=sum(total.values()),
            fileTypes=_by_count(total),
            containerCount=containers,
            folderCount=len(assigned),
        ),
        folders=folders,
    )


async def my_folder_page(
    user_id: int, actor: Actor, q: str, page: int, page_size: int | None
) -> MyFoldersResponse:
    """One page of the folders assigned to the caller in every container (q: a case-insensitive
    substring of the folder's name or its patient's name, record number or date of birth),
    each with its file counts and patient (audited: folder names are
    patient data)."""
    found, total, approximate = await containers.assigned_folders(user_id, q, page, page_size)
    per_folder: dict[int, dict[str, int]] = {}
    ids = [folder_id for folder_id, *_ in found]
    for item in await repository.file_counts_in(ids, held=may_see(HELD, actor)):
        per_folder.setdefault(item["folder_id"], {})[item["extension"]] = item["n"]
    await record_alone(actor, "folder_list", details=f"my folders, {listing_details(q, page)}")
    return MyFoldersResponse(
        folders=[
            FolderStats(
                containerName=container,
                folderName=folder,
                totalFiles=sum(per_folder.get(folder_id, {}).values()),
                fileTypes=_by_count(per_folder.get(folder_id, {})),
                patient=PatientDetails.known(patient),
            )
            for folder_id, container, folder, patient in found
        ],
        total=total,
        page=page,
        pageSize=page_size,
        approximate=approximate,
    )
