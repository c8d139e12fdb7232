"""Reads and writes of container and folder assignments."""

from __future__ import annotations

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.assignments.models import ContainerAssignment, FolderAssignment
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


_CONTAINERS_BY_USER = (
    "SELECT ca.id AS id, ca.user_id AS user_id, c.name AS container FROM container_assignments ca "
    "JOIN containers c ON c.id = ca.container_id ORDER BY c.name, ca.id"
)
_FOLDER_COUNTS = "SELECT user_id, COUNT(*) AS n FROM folder_assignments GROUP BY user_id"


async def container_assignments_by_user() -> dict[int, list[ContainerAssignmentOut]]:
    """Every user's container assignments (by container name), by user id."""
    containers: dict[int, list[ContainerAssignmentOut]] = {}
    for row in await fetch(_CONTAINERS_BY_USER):
        containers.setdefault(row["user_id"], []).append(
            ContainerAssignmentOut(id=row["id"], containerName=row["container"])
        )
    return containers


async def folder_counts_by_user() -> dict[int, int]:
    """How many folders each user has assigned, by user id (users without any are absent)."""
    return {row["user_id"]: row["n"] for row in await fetch(_FOLDER_COUNTS)}


async def assignment_counts(user_id: int) -> tuple[int, int]:
    """How many containers and folders a user has assigned."""
    containers = await ContainerAssignment.filter(user_id=user_id).count()
    folders = await FolderAssignment.filter(user_id=user_id).count()
    return containers, folders


async def has_container(user_id: int, container_id: int) -> bool:
    """Whether a user has a container assigned."""
    return await ContainerAssignment.exists(user_id=user_id, container_id=container_id)


async def add_container(
    conn: BaseDBAsyncClient, user_id: int, container_id: int
) -> ContainerAssignment:
    """Assign a container to a user inside transaction conn."""
    return await ContainerAssignment.create(
        user_id=user_id, container_id=container_id, using_db=conn
    )


async def held_folder_names(user_id: int, container_id: int) -> set[str]:
    """The names of a container's folders that a user has assigned."""
    names = await FolderAssignment.filter(
        user_id=user_id, folder__container_id=container_id
    ).values_list("folder__name", flat=True)
    return {str(name) for name in names}


async def lock_user_container(
    conn: BaseDBAsyncClient, user_id: int, container_id: int
) -> ContainerAssignment | None:
    """Lock a user's assignment of a container until conn ends (None: not assigned).

    While it is held, a concurrent unassignment of the container waits and then removes the
    folders assigned meanwhile too, so no folder is left without its container.
    """
    query = ContainerAssignment.filter(user_id=user_id, container_id=container_id)
    return await query.select_for_update().using_db(conn).first()


async def add_folder(conn: BaseDBAsyncClient, user_id: int, folder_id: int) -> FolderAssignment:
    """Assign a folder to a user inside transaction conn."""
    return await FolderAssignment.create(user_id=user_id, folder_id=folder_id, using_db=conn)


async def locked_container_assignment(
    conn: BaseDBAsyncClient, assignment_id: int
) -> ContainerAssignment | None:
    """A container assignment, locked until conn ends, with its container and user loaded."""
    # Lock first: FOR UPDATE cannot take the outer joins that load the container and user.
    query = ContainerAssignment.filter(id=assignment_id).using_db(conn)
    if await query.select_for_update().first() is None:
        return None
    return await query.select_related("container", "user").first()


async def remove_container_assignment(conn: BaseDBAsyncClient, ca: ContainerAssignment) -> int:
    """Delete a container assignment with the user's folders in it; return how many folders."""
    removed = (
        await FolderAssignment.filter(user_id=ca.user.id, folder__container_id=ca.container.id)
        .using_db(conn)
        .values_list("id", flat=True)
    )
    await FolderAssignment.filter(id__in=list(removed)).using_db(conn).delete()
    await ca.delete(using_db=conn)
    return len(removed)


async def folder_assignment(conn: BaseDBAsyncClient, assignment_id: int) -> FolderAssignment | None:
    """A folder assignment with its folder, container and user loaded."""
    query = FolderAssignment.filter(id=assignment_id).using_db(conn)
    return await query.select_related("folder__container", "user").first()


async def remove_folder_assignment(conn: BaseDBAsyncClient, fa: FolderAssignment) -> None:
    """Delete a folder assignment inside transaction conn."""
    await fa.delete(using_db=conn)


async def ensure_assigned(user_id: int, container_id: int, folder_ids: list[int]) -> None:
    """Give a user a container and folders of it, keeping those they already have (the demo)."""
    await ContainerAssignment.get_or_create(user_id=user_id, container_id=container_id)
    for folder_id in folder_ids:
        await FolderAssignment.get_or_create(user_id=user_id, folder_id=folder_id)
