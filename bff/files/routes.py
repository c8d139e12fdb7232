"""Patient file endpoints under /api/blobs (spec section 7: Files)."""

from __future__ import annotations

from urllib.parse import quote

from quart import Blueprint, Response, request
from quart_schema import validate_querystring, validate_request, validate_response

from bff import metrics
from bff.auth.links import sign_link
from bff.auth.policy import ADMIN, ANY_ROLE, CAN_UPLOAD, Scope, allow, current_principal
from bff.containers.service import get_folder
from bff.errors import ApiError
from bff.files import repository, service, versions
from bff.files import upload as upload_service
from bff.files.delivery import send_view
from bff.files.multipart import UploadForm
from bff.files.names import PROFILE_IMAGE_NAME
from bff.files.schemas import (
    BlobList,
    PurgeRequest,
    TrashList,
    UploadQuery,
    UploadResponse,
    VersionList,
    ViewLink,
)
from bff.request_context import current_actor
from bff.services import app_services
from bff.streaming import streamed_body
from bff.users.schemas import Message

bp = Blueprint("files", __name__, url_prefix="/api/blobs")

UPLOAD_IDLE_TIMEOUT = 60.0  # seconds without a byte before a stalled upload is dropped


async def _serve(
    container: str,
    folder: str,
    name: str,
    operation: str,
    *,
    may_redirect: bool = True,
    version_id: str | None = None,
) -> Response:
    """Send one indexed file, or an earlier version of it, with Range support and safe headers
    (the access is audited). may_redirect: whether the bytes may come from another origin
    (BFF_VIEW_OFFLOAD=s3)."""
    services = app_services()
    offload = services.settings.view_offload
    if offload == "s3" and not may_redirect:
        offload = "none"
    source = await service.open_view(
        container,
        folder,
        name,
        request.headers.get("Range"),
        operation=operation,
        actor=current_actor(),
        storage=services.storage,
        version_id=version_id,
        sized_by_index=offload != "none",
    )
    return await send_view(
        source,
        offload,
        services.storage,
        services.settings.view_offload_seconds,
    )


@bp.get("/<container>/<folder>")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(BlobList)
async def list_files(container: str, folder: str) -> BlobList:
    """A folder's files, sorted by name, and whether it has a profile image."""
    return await service.list_files(await get_folder(container, folder), current_actor())


@bp.post("/<container>/<folder>")
@allow(CAN_UPLOAD, Scope.FOLDER)
@validate_querystring(UploadQuery)
@validate_response(UploadResponse, 201)
async def upload(
    container: str, folder: str, query_args: UploadQuery
) -> tuple[UploadResponse, int]:
    """Upload a file as multipart/form-data (file, filename; isProfileImage 'true' for a
    profile image). RTF is converted to TXT; an existing name is 409 unless overwrite=true."""
    services = app_services()
    limit = services.settings.max_upload_bytes
    upload_service.check_declared_size(request.content_length, limit)
    folder_row = await get_folder(container, folder)
    form = UploadForm(
        streamed_body(),
        request.headers.get("Content-Type", ""),
        UPLOAD_IDLE_TIMEOUT,
        max_file=limit,
        too_large=upload_service.too_large(limit),
    )
    result = await upload_service.upload(
        folder_row,
        form,
        max_bytes=limit,
        rtf_max_bytes=services.settings.rtf_max_bytes,
        overwrite=query_args.overwrite,
        actor=current_actor(),
        storage=services.storage,
    )
    metrics.UPLOAD_BYTES.inc(result.blob.contentLength)
    return result, 201


@bp.get("/<container>/<folder>/profile-image")
@allow(ANY_ROLE, Scope.FOLDER, emergency=True)
async def profile_image(container: str, folder: str) -> Response:
    """The folder's profile image (JPEG, 150x150)."""
    # Small, and shown inside the app's pages, whose CSP allows images from its own origin
    # only: never redirected to the bucket.
    return await _serve(container, folder, PROFILE_IMAGE_NAME, "profile_view", may_redirect=False)


@bp.delete("/<container>/<folder>/<blob>")
@allow(ADMIN, Scope.FOLDER)
@validate_response(Message)
async def delete_file(container: str, folder: str, blob: str) -> Message:
    """Move a file or the profile image, with its versions, to the folder's trash (admins
    only); it is purged after BFF_TRASH_DAYS."""
    folder_row = await get_folder(container, folder)
    message = await versions.trash_file(folder_row, blob, current_actor(), app_services().storage)
    return Message(message=message)


def _signed_view_link(*path: str) -> ViewLink:
    """A signed link to the `view` route under path, for this session only (the one link
    mechanism: bff/auth/links.py)."""
    session_id = current_principal().session_id
    value, expires = sign_link(app_services().settings, session_id, path)
    where = "/".join(quote(part, safe="") for part in path[:3])
    if len(path) > 3:  # an earlier version
        where += "/versions/" + quote(path[3], safe="")
    return ViewLink(url=f"/api/blobs/{where}/view?link={value}", expiresAt=expires)


@bp.get("/<container>/<folder>/<blob>/url")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(ViewLink)
async def view_link(container: str, folder: str, blob: str) -> ViewLink:
    """A short-lived link that opens the file for this session, keeping the token out of URLs."""
    await service.get_file(await get_folder(container, folder), blob)
    return _signed_view_link(container, folder, blob)


@bp.get("/<container>/<folder>/<blob>/view")
@allow(ANY_ROLE, Scope.FOLDER, link=("container", "folder", "blob"), emergency=True)
async def view_file(container: str, folder: str, blob: str) -> Response:
    """Stream a file (HTTP Range supported) by a signed link, the header, the auth query (only
    with BFF_ALLOW_TOKEN_IN_URL), or a responder's emergency grant for this folder."""
    return await _serve(container, folder, blob, "file_view")


@bp.get("/<container>/<folder>/<blob>/versions")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(VersionList)
async def list_versions(container: str, folder: str, blob: str) -> VersionList:
    """A file's versions, newest first, the current one included."""
    return await versions.list_versions(await get_folder(container, folder), blob, current_actor())


@bp.get("/<container>/<folder>/<blob>/versions/<version_id>/url")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(ViewLink)
async def version_link(container: str, folder: str, blob: str, version_id: str) -> ViewLink:
    """A short-lived link that opens an earlier version for this session (as for the file)."""
    folder_row = await get_folder(container, folder)
    await service.get_file(folder_row, blob)
    if await repository.live_version(folder_row.id, blob, version_id) is None:
        raise ApiError(404, service.VERSION_NOT_FOUND)
    return _signed_view_link(container, folder, blob, version_id)


@bp.get("/<container>/<folder>/<blob>/versions/<version_id>/view")
@allow(ANY_ROLE, Scope.FOLDER, link=("container", "folder", "blob", "version_id"))
async def view_version(container: str, folder: str, blob: str, version_id: str) -> Response:
    """Stream an earlier version (HTTP Range supported) by a signed link or the header."""
    return await _serve(container, folder, blob, "version_view", version_id=version_id)


@bp.post("/<container>/<folder>/<blob>/versions/<version_id>/restore")
@allow(CAN_UPLOAD, Scope.FOLDER)
@validate_response(Message)
async def restore_version(container: str, folder: str, blob: str, version_id: str) -> Message:
    """Make an earlier version current; the replaced content becomes a version in turn."""
    message = await versions.restore_version(
        await get_folder(container, folder),
        blob,
        version_id,
        current_actor(),
        app_services().storage,
    )
    return Message(message=message)


@bp.get("/<container>/<folder>/trash")
@allow(ADMIN, Scope.FOLDER)
@validate_response(TrashList)
async def list_trash(container: str, folder: str) -> TrashList:
    """The folder's trash: deleted files, who deleted them and when they will be purged."""
    services = app_services()
    folder_row = await get_folder(container, folder)
    return await versions.list_trash(folder_row, current_actor(), services.settings)


@bp.post("/<container>/<folder>/trash/<blob>/restore")
@allow(ADMIN, Scope.FOLDER)
@validate_response(Message)
async def restore_trashed(container: str, folder: str, blob: str) -> Message:
    """Bring a deleted file back with its versions (409 if a file of that name exists now)."""
    message = await versions.restore_trashed(
        await get_folder(container, folder), blob, current_actor(), app_services().storage
    )
    return Message(message=message)


@bp.delete("/<container>/<folder>/trash/<blob>")
@allow(ADMIN, Scope.FOLDER)
@validate_request(PurgeRequest)
@validate_response(Message)
async def purge_trashed(container: str, folder: str, blob: str, data: PurgeRequest) -> Message:
    """Delete a file in the trash for good (body {confirmation: "DELETE"})."""
    message = await versions.purge_trashed(
        await get_folder(container, folder),
        blob,
        data.confirmation,
        current_actor(),
        app_services().storage,
    )
    return Message(message=message)
