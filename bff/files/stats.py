"""File statistics of the caller's assigned folders, counted by the database in one pass."""

from __future__ import annotations

from bff.assignments.access import caller_assignments
from bff.files import repository
from bff.files.schemas import FolderStats, MyStatsResponse, SummaryStats
from bff.naming import sort_key


def _by_count(types: dict[str, int]) -> dict[str, int]:
    return dict(sorted(types.items(), key=lambda kv: (-kv[1], kv[0])))


async def my_stats(user_id: int) -> MyStatsResponse:
    """File counts over the caller's assigned folders, in the order of my-assignments."""
    assigned = await repository.assigned_folders_of(user_id)
    per_folder: dict[int, dict[str, int]] = {}
    total: dict[str, int] = {}
    for item in await repository.file_counts_of(user_id):
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
