"""Assignment endpoints under /api/assignments (spec section 7)."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_querystring, validate_request, validate_response

from bff.assignments import service
from bff.assignments.schemas import (
    AssignFolders,
    ContainerAssigned,
    FoldersAssigned,
    MyAssignmentsResponse,
    UnassignQuery,
    UserAssignmentsResponse,
)
from bff.auth.policy import ADMIN, ANY_ROLE, Scope, allow, current_principal
from bff.containers import service as containers
from bff.containers.schemas import ContainersResponse, FoldersResponse, ListQuery
from bff.files.schemas import MyFoldersResponse, MyStatsResponse
from bff.files.stats import my_folder_page, my_stats
from bff.patients.schemas import PatientDetails
from bff.request_context import current_actor
from bff.users.schemas import Message

bp = Blueprint("assignments", __name__, url_prefix="/api/assignments")


@bp.get("/containers")
@allow(ANY_ROLE)
@validate_querystring(ListQuery)
@validate_response(ContainersResponse)
async def list_containers(query_args: ListQuery) -> ContainersResponse:
    """Containers the caller may see (all for admins), searchable and paged."""
    names, total = await containers.list_containers(
        current_principal(), query_args.q, query_args.page, query_args.pageSize
    )
    return ContainersResponse(
        containers=names, total=total, page=query_args.page, pageSize=query_args.pageSize
    )


@bp.get("/containers/<container>/folders")
@allow(ANY_ROLE, Scope.CONTAINER)
@validate_querystring(ListQuery)
@validate_response(FoldersResponse)
async def list_folders(container: str, query_args: ListQuery) -> FoldersResponse:
    """Folders of a container the caller may see (all for admins), with their patients,
    searchable (folder name, patient name, record number, date of birth) and paged."""
    found, total, approximate = await containers.list_folders(
        current_principal(),
        current_actor(),
        container,
        query_args.q,
        query_args.page,
        query_args.pageSize,
    )
    return FoldersResponse(
        folders=[name for name, _ in found],
        patients={
            name: PatientDetails.of(patient) for name, patient in found if not patient.is_empty()
        },
        total=total,
        page=query_args.page,
        pageSize=query_args.pageSize,
        approximate=approximate,
    )


# `string:` spelled out: quart-schema mis-reads a bare parameter before a typed one in OpenAPI.
@bp.post("/containers/<string:container>/users/<int:user_id>")
@allow(ADMIN, recent_auth=True)
@validate_response(ContainerAssigned, 201)
async def assign_container(container: str, user_id: int) -> tuple[ContainerAssigned, int]:
    """Assign a container to a user (mode 'new')."""
    assignment = await service.assign_container(container, user_id, current_actor())
    return ContainerAssigned(message="Container assigned successfully", assignment=assignment), 201


@bp.post("/containers/<container>/folders")
@allow(ADMIN, recent_auth=True)
@validate_request(AssignFolders)
@validate_response(FoldersAssigned, 201)
async def assign_folders(container: str, data: AssignFolders) -> tuple[FoldersAssigned, int]:
    """Assign folders of an already-assigned container to a user (mode 'update')."""
    created, held = await service.assign_folders(
        container, data.userId, data.folderNames, current_actor()
    )
    return (
        FoldersAssigned(
            message="Folders assigned successfully", assigned=created, alreadyAssigned=held
        ),
        201,
    )


@bp.get("/users/<int:user_id>")
@allow(ADMIN)
@validate_response(UserAssignmentsResponse)
async def user_assignments(user_id: int) -> UserAssignmentsResponse:
    """A user's container and folder assignments."""
    containers_, folders = await service.user_assignments(user_id)
    return UserAssignmentsResponse(containerAssignments=containers_, folderAssignments=folders)


@bp.get("/my-assignments")
@allow(ANY_ROLE)
@validate_response(MyAssignmentsResponse)
async def my_assignments() -> MyAssignmentsResponse:
    """The caller's containers and the folders assigned in each."""
    return MyAssignmentsResponse(
        assignments=await service.my_assignments(current_principal().user_id)
    )


@bp.get("/my-assignments/stats")
@allow(ANY_ROLE)
@validate_response(MyStatsResponse)
async def my_assignment_stats() -> MyStatsResponse:
    """File statistics of the caller's assigned folders, and their sum, in one response."""
    return await my_stats(current_principal().user_id, current_actor())


@bp.get("/my-assignments/folders")
@allow(ANY_ROLE)
@validate_querystring(ListQuery)
@validate_response(MyFoldersResponse)
async def my_folders(query_args: ListQuery) -> MyFoldersResponse:
    """The caller's assigned folders in every container with their file counts, searchable
    (folder name, patient name, record number, date of birth) and paged: My Assignments' list
    and the dashboard's patient search."""
    return await my_folder_page(
        current_principal().user_id,
        current_actor(),
        query_args.q,
        query_args.page,
        query_args.pageSize,
    )


@bp.delete("/<int:assignment_id>")
@allow(ADMIN)
@validate_querystring(UnassignQuery)
@validate_response(Message)
async def unassign(assignment_id: int, query_args: UnassignQuery) -> Message:
    """Remove a container assignment (with its folders) or a folder assignment."""
    return Message(message=await service.unassign(assignment_id, query_args.type, current_actor()))
