"""Admin creation of containers and folders: /api/admin/containers*."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.auth.policy import ADMIN, allow
from bff.containers import service
from bff.containers.schemas import ContainerCreated, CreateContainer, CreateFolder, FolderCreated
from bff.request_context import current_actor
from bff.services import app_services

bp = Blueprint("containers", __name__, url_prefix="/api/admin")


@bp.post("/containers")
@allow(ADMIN)
@validate_request(CreateContainer)
@validate_response(ContainerCreated, 201)
async def create_container(data: CreateContainer) -> tuple[ContainerCreated, int]:
    """Create a storage container."""
    container = await service.create_container(data.name, current_actor(), app_services().storage)
    return ContainerCreated(
        message="Container created successfully", containerName=container.name
    ), 201


@bp.post("/containers/<container>/folders")
@allow(ADMIN)
@validate_request(CreateFolder)
@validate_response(FolderCreated, 201)
async def create_folder(container: str, data: CreateFolder) -> tuple[FolderCreated, int]:
    """Create a patient folder in a container."""
    folder = await service.create_folder(
        container, data.name, current_actor(), app_services().storage
    )
    return (
        FolderCreated(
            message="Folder created successfully", containerName=container, folderName=folder.name
        ),
        201,
    )
