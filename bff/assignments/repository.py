"""Reads and writes of container and folder assignments."""

from __future__ import annotations

from bff.assignments.models import FolderAssignment
from bff.assignments.schemas import ContainerAssignmentOut, FolderAssignmentOut
from bff.db import fetch

# The assignments of some users in one query (container rows, then folder rows): plain SQL, as
# /api/auth/me and /my-assignments run it on every dashboard load.
ASSIGNMENTS_QUERY = """
SELECT 'c' AS kind, ca.id AS id, ca.user_id AS user_id, c.name AS container, NULL AS folder
  FROM container_assignments ca JOIN containers c ON c.id = ca.container_id
 WHERE ca.user_id IN ({ids})
UNION ALL
SELECT 'f' AS kind, fa.id AS id, fa.user_id AS user_id, c.name AS container, f.name AS folder
  FROM folder_assignments fa JOIN folders f ON f.id = fa.folder_id
  JOIN containers c ON c.id = f.container_id
 WHERE fa.user_id IN ({ids})
 ORDER BY kind, container, folder, id
"""


async def assignments_of(
    user_ids: list[int],
) -> tuple[dict[int, list[ContainerAssignmentOut]], dict[int, list[FolderAssignmentOut]]]:
    """Container and folder assignments by user id, ordered by container and folder name."""
    containers: dict[int, list[ContainerAssignmentOut]] = {i: [] for i in user_ids}
    folders: dict[int, list[FolderAssignmentOut]] = {i: [] for i in user_ids}
    if not user_ids:
        return containers, folders
    marks = ", ".join("?" * len(user_ids))
    for row in await fetch(ASSIGNMENTS_QUERY.format(ids=marks), *user_ids, *user_ids):
        if row["kind"] == "c":
            containers[row["user_id"]].append(
                ContainerAssignmentOut(id=row["id"], containerName=row["container"])
            )
        else:
            folders[row["user_id"]].append(
                FolderAssignmentOut(
                    id=row["id"], containerName=row["container"], folderName=row["folder"]
                )
            )
    return containers, folders


async def folder_member_ids(folder_id: int) -> list[int]:
    """The users who have a folder assigned."""
    rows = await FolderAssignment.filter(folder_id=folder_id).values("user_id")
    return [int(row["user_id"]) for row in rows]
