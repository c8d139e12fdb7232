"""Containers and folders: lookups that answer 404, creation, and the caller's listings."""

from __future__ import annotations

from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, listing_details, record, record_alone
from bff.auth.sessions import Principal
from bff.containers import repository
from bff.containers.models import Container, Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.naming import container_name, folder_name
from bff.patients.rules import Demographics
from storage.base import Storage

CONTAINER_NOT_FOUND = "Container not found"
FOLDER_NOT_FOUND = "Folder not found"


async def get_container(name: str) -> Container:
    """A container by name, or 404."""
    container = await repository.container_named(name)
    if container is None:
        raise ApiError(404, CONTAINER_NOT_FOUND)
    return container


async def get_folder(container_name: str, folder_name: str) -> Folder:
    """A folder (with its container loaded) by names, or 404 naming what is missing."""
    folder = await repository.folder_named(container_name, folder_name)
    if folder is None:
        await get_container(container_name)  # 404 for the container when that is missing
        raise ApiError(404, FOLDER_NOT_FOUND)
    return folder


async def create_container(name: str, actor: Actor, storage: Storage) -> Container:
    """Create a container in storage and the database; 400 for a bad name, 409 if it exists."""
    name = container_name(name)
    if await repository.container_exists(name):
        raise ApiError(409, f"Container '{name}' already exists.")
    await storage.create_container(name)  # first: a database row never names missing storage
    try:
        async with transaction() as conn:
            container = await repository.create_container(conn, name)
            await record(conn, actor, "container_create", container=name)
    except IntegrityError:
        raise ApiError(409, f"Container '{name}' already exists.") from None
    return container


async def create_folder(container_name: str, name: str, actor: Actor, storage: Storage) -> Folder:
    """Create a patient folder in storage and the database; 404 unknown container, 400, 409."""
    container = await get_container(container_name)
    name = folder_name(name)
    exists_message = f"Folder '{name}' already exists in '{container_name}'."
    if await repository.folder_exists(container.id, name):
        raise ApiError(409, exists_message)
    await storage.create_folder(container_name, name)
    try:
        async with transaction() as conn:
            folder = await repository.create_folder(conn, container, name)
            await record(conn, actor, "folder_create", container=container_name, folder=name)
    except IntegrityError:
        raise ApiError(409, exists_message) from None
    return folder


async def list_containers(
    principal: Principal, q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    """Containers the caller may see: all for admins, assigned ones for staff."""
    return await repository.readable_containers(principal, q, page, page_size)


async def list_folders(
    principal: Principal,
    actor: Actor,
    container_name: str,
    q: str,
    page: int,
    page_size: int | None,
) -> tuple[list[tuple[str, Demographics]], int, bool]:
    """Folders of a container the caller may see, with their patients: all for admins,
    assigned ones for staff (audited: folder names and patients are patient data); the total,
    and whether the match is approximate (a name with one typo)."""
    container = await get_container(container_name)
    found = await repository.readable_folders(principal, container, q, page, page_size)
    await record_alone(
        actor, "folder_list", container=container.name, details=listing_details(q, page)
    )
    return found
