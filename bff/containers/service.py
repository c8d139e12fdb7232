"""Containers and folders: creation, and caller-scoped, naturally sorted, paged listings."""

from __future__ import annotations

from tortoise.exceptions import IntegrityError
from tortoise.queryset import QuerySet

from bff.audit.service import Actor, record
from bff.auth.sessions import Principal
from bff.containers.models import Container, Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.naming import container_name_error, folder_name_error, sort_key
from storage.base import Storage

NATURAL_ORDER = ("sort_prefix", "sort_number", "name")
CONTAINER_NOT_FOUND = "Container not found"
FOLDER_NOT_FOUND = "Folder not found"


async def get_container(name: str) -> Container:
    """A container by name, or 404."""
    container = await Container.get_or_none(name=name)
    if container is None:
        raise ApiError(404, CONTAINER_NOT_FOUND)
    return container


async def get_folder(container_name: str, folder_name: str) -> Folder:
    """A folder (with its container loaded) by names, or 404 naming what is missing."""
    folder = await Folder.get_or_none(
        container__name=container_name, name=folder_name
    ).select_related("container")
    if folder is None:
        await get_container(container_name)  # 404 for the container when that is missing
        raise ApiError(404, FOLDER_NOT_FOUND)
    return folder


async def create_container(name: str, actor: Actor, storage: Storage) -> Container:
    """Create a container in storage and the database; 400 for a bad name, 409 if it exists."""
    if error := container_name_error(name):
        raise ApiError(400, error)
    if await Container.exists(name=name):
        raise ApiError(409, f"Container '{name}' already exists.")
    await storage.create_container(name)  # first: a database row never names missing storage
    prefix, number = sort_key(name)
    try:
        async with transaction() as conn:
            container = await Container.create(
                name=name, sort_prefix=prefix, sort_number=number, using_db=conn
            )
            await record(conn, actor, "container_create", container=name)
    except IntegrityError:
        raise ApiError(409, f"Container '{name}' already exists.") from None
    return container


async def create_folder(container_name: str, name: str, actor: Actor, storage: Storage) -> Folder:
    """Create a patient folder in storage and the database; 404 unknown container, 400, 409."""
    container = await get_container(container_name)
    if error := folder_name_error(name):
        raise ApiError(400, error)
    exists_message = f"Folder '{name}' already exists in '{container_name}'."
    if await Folder.exists(container=container, name=name):
        raise ApiError(409, exists_message)
    await storage.create_folder(container_name, name)
    prefix, number = sort_key(name)
    try:
        async with transaction() as conn:
            folder = await Folder.create(
                container=container,
                name=name,
                sort_prefix=prefix,
                sort_number=number,
                using_db=conn,
            )
            await record(conn, actor, "folder_create", container=container_name, folder=name)
    except IntegrityError:
        raise ApiError(409, exists_message) from None
    return folder


async def _page(
    query: QuerySet[Container] | QuerySet[Folder], q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    if q:
        query = query.filter(name__icontains=q)
    total = await query.count()
    ordered = query.order_by(*NATURAL_ORDER)
    if page_size is not None:
        ordered = ordered.offset((page - 1) * page_size).limit(page_size)
    names = await ordered.values_list("name", flat=True)
    return [str(n) for n in names], total


async def list_containers(
    principal: Principal, q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    """Containers the caller may see: all for admins, assigned ones for staff."""
    query = Container.all()
    if not principal.is_admin:
        query = query.filter(assignments__user_id=principal.user_id)
    return await _page(query, q, page, page_size)


async def list_folders(
    principal: Principal, container_name: str, q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    """Folders of a container the caller may see: all for admins, assigned ones for staff."""
    container = await get_container(container_name)
    query = Folder.filter(container=container)
    if not principal.is_admin:
        query = query.filter(assignments__user_id=principal.user_id)
    return await _page(query, q, page, page_size)
