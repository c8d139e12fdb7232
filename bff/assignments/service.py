"""Assignment rules: 'new' and 'update' modes, cascading unassignment, audit of each change."""

from __future__ import annotations

from bff.assignments import repository
from bff.assignments.access import caller_assignments
from bff.assignments.schemas import (
    AssignedFolder,
    Assignment,
    ContainerAssignmentOut,
    FolderAssignmentOut,
)
from bff.audit.service import Actor, record
from bff.containers import repository as containers
from bff.containers.service import get_container
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, ASSIGNMENTS_CHANGED, publish, user_room
from bff.naming import natural_sorted, sort_key
from bff.users.service import find_user, get_user

ASSIGNMENT_NOT_FOUND = "Assignment not found"


def _changed(user_id: int) -> None:
    """Tell the user (and admins) that their assignments changed, once this commits."""
    publish(ASSIGNMENTS_CHANGED, {"userId": user_id}, [user_room(user_id), ADMINS])


async def my_assignments(user_id: int) -> list[Assignment]:
    """The caller's containers, each with the folders assigned in it, in natural order."""
    mine = await caller_assignments(user_id)
    by_container: dict[str, list[AssignedFolder]] = {}
    for fa in mine.folders:
        by_container.setdefault(fa.containerName, []).append(
            AssignedFolder(id=fa.id, folderName=fa.folderName)
        )
    return [
        Assignment(
            id=ca.id,
            containerName=ca.containerName,
            folders=sorted(
                by_container.get(ca.containerName, []),
                key=lambda f: (*sort_key(f.folderName), f.folderName),
            ),
        )
        for ca in sorted(
            mine.containers, key=lambda a: (*sort_key(a.containerName), a.containerName)
        )
    ]


async def user_assignments(
    user_id: int,
) -> tuple[list[ContainerAssignmentOut], list[FolderAssignmentOut]]:
    """A user's container and folder assignments (404 for an unknown user)."""
    user = await get_user(user_id)
    return user.containerAssignments, user.folderAssignments


async def assign_container(
    container_name: str, user_id: int, actor: Actor
) -> ContainerAssignmentOut:
    """Mode 'new': give a user a container they do not have yet."""
    container = await get_container(container_name)
    user = await find_user(user_id)
    if await repository.has_container(user.id, container.id):
        raise ApiError(409, f"Container '{container_name}' is already assigned to {user.name}.")
    async with transaction() as conn:
        assignment = await repository.add_container(conn, user.id, container.id)
        _changed(user.id)
        await record(
            conn,
            actor,
            "container_assign",
            container=container_name,
            details=f"user={user.username}",
        )
    return ContainerAssignmentOut(id=assignment.id, containerName=container_name)


async def assign_folders(
    container_name: str, user_id: int, folder_names: list[str], actor: Actor
) -> tuple[list[FolderAssignmentOut], list[str]]:
    """Mode 'update': add folders of an assigned container; return new and already-held ones."""
    container = await get_container(container_name)
    user = await find_user(user_id)
    wanted = list(dict.fromkeys(folder_names))
    folders = await containers.folders_named(container.id, wanted)
    missing = [n for n in wanted if n not in folders]
    if missing:
        shown = ", ".join(natural_sorted(missing)[:10])
        raise ApiError(404, f"Folders not found in '{container_name}': {shown}")
    held = await repository.held_folder_names(user.id, container.id)
    created: list[FolderAssignmentOut] = []
    async with transaction() as conn:
        if await repository.lock_user_container(conn, user.id, container.id) is None:
            raise ApiError(
                409,
                f"Assign container '{container_name}' to {user.name} before assigning its folders.",
            )
        _changed(user.id)
        for name in natural_sorted([n for n in wanted if n not in held]):
            fa = await repository.add_folder(conn, user.id, folders[name].id)
            await record(
                conn,
                actor,
                "folder_assign",
                container=container_name,
                folder=name,
                details=f"user={user.username}",
            )
            created.append(
                FolderAssignmentOut(id=fa.id, containerName=container_name, folderName=name)
            )
    return created, natural_sorted([n for n in wanted if n in held])


async def unassign(assignment_id: int, kind: str, actor: Actor) -> str:
    """Remove one assignment (a container takes the user's folders in it along); say what."""
    async with transaction() as conn:
        if kind == "container":
            ca = await repository.locked_container_assignment(conn, assignment_id)
            if ca is None:
                raise ApiError(404, ASSIGNMENT_NOT_FOUND)
            removed = await repository.remove_container_assignment(conn, ca)
            _changed(ca.user.id)
            await record(
                conn,
                actor,
                "container_unassign",
                container=ca.container.name,
                details=f"user={ca.user.username} folders={removed}",
            )
            return "Container unassigned successfully"
        fa = await repository.folder_assignment(conn, assignment_id)
        if fa is None:
            raise ApiError(404, ASSIGNMENT_NOT_FOUND)
        await repository.remove_folder_assignment(conn, fa)
        _changed(fa.user.id)
        await record(
            conn,
            actor,
            "folder_unassign",
            container=fa.folder.container.name,
            folder=fa.folder.name,
            details=f"user={fa.user.username}",
        )
        return "Folder unassigned successfully"
