"""What a signed-in caller may see: their assignments, read once and then kept in the session
cache (bff/auth/session_cache.py) until an assignments:changed event makes it forget them.

Every permission check of a container or folder route, GET /api/auth/me and the dashboard's
my-assignments read these, so a busy member of staff costs no assignment query per request.
"""

from __future__ import annotations

from dataclasses import dataclass

from bff.assignments.repository import assignments_of
from bff.assignments.schemas import ContainerAssignmentOut, FolderAssignmentOut
from bff.services import running_services


@dataclass(frozen=True)
class Assignments:
    """A user's container and folder assignments (ordered by name), and lookups of them."""

    containers: tuple[ContainerAssignmentOut, ...]
    folders: tuple[FolderAssignmentOut, ...]
    container_names: frozenset[str]
    folder_keys: frozenset[tuple[str, str]]

    def has_container(self, container: str) -> bool:
        """Whether the container is assigned."""
        return container in self.container_names

    def has_folder(self, container: str, folder: str) -> bool:
        """Whether the folder of container is assigned."""
        return (container, folder) in self.folder_keys


async def caller_assignments(user_id: int) -> Assignments:
    """A user's assignments, from the session cache or the database."""
    services = running_services()
    cache = services.session_cache if services is not None else None
    if cache is not None and (cached := cache.assignments(user_id)) is not None:
        found: Assignments = cached
        return found
    generation = cache.generation() if cache is not None else 0
    containers, folders = await assignments_of([user_id])
    assignments = Assignments(
        containers=tuple(containers[user_id]),
        folders=tuple(folders[user_id]),
        container_names=frozenset(c.containerName for c in containers[user_id]),
        folder_keys=frozenset((f.containerName, f.folderName) for f in folders[user_id]),
    )
    if cache is not None:
        cache.put_assignments(generation, user_id, assignments)
    return assignments
