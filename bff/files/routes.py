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
from bff.files import repository, service, thumbnails, trash, versions, viewer, visits
from bff.files import upload as upload_service
from bff.files.delivery import rendered_headers, send_view
from bff.files.multipart import UploadForm
from bff.files.names import PROFILE_IMAGE_NAME
from bff.files.schemas import (
    BlobList,
    PageQuery,
    PurgeRequest,
    TrashList,
    UploadQuery,
    UploadResponse,
    VersionList,
    ViewerOpen,
    ViewLink,
    VisitOut,
)
from bff.request_context import current_actor
from bff.search.text_layer import has_text_layer
from bff.search.text_layer import links as text_links
from bff.services import app_services
from bff.streaming import IDLE_SECONDS, streamed_body
from bff.users.schemas import Message

bp = Blueprint("files", __name__, url_prefix="/api/blobs")

UPLOAD_IDLE_TIMEOUT = IDLE_SECONDS  # seconds without a byte before a stalled upload is dropped


async def _serve(
    container: str,
    folder: str,
    name: str,
    operation: str | None,
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
    """A folder's files, sorted by name, whether it has a profile image, and the upload limit;
    each file's `preview` is a link to its thumbnail for this session (null while there is
    none)."""
    folder_row = await get_folder(container, folder)
    previews = thumbnails.listing_links(
        folder_row, app_services().settings, current_principal().session_id
    )
    listing = await service.list_files(folder_row, current_actor(), previews)
    listing.maxUploadBytes = app_services().settings.max_upload_bytes
    return listing


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


@bp.post("/<container>/<folder>/visit")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(VisitOut)
async def visit(container: str, folder: str) -> VisitOut:
    """Record the caller's visit to the folder now and answer when the visit before it ended
    (null: the first), so the web app can mark files added since as new. Requests within
    visits.VISIT_WINDOW (30 minutes) of the last are one visit, answered the same: a reload
    keeps the marks. Not audited: when someone opened a folder's list says nothing about the
    patient (the listing itself is audited). Not for emergency grants (a responder has no
    visits)."""
    folder_row = await get_folder(container, folder)
    previous = await visits.visit(folder_row, current_principal().user_id)
    return VisitOut(previousVisitAt=previous)


@bp.delete("/<container>/<folder>/<blob>")
@allow(ADMIN, Scope.FOLDER)
@validate_response(Message)
async def delete_file(container: str, folder: str, blob: str) -> Message:
    """Move a file or the profile image, with its versions, to the folder's trash (admins
    only); it is purged after BFF_TRASH_DAYS."""
    folder_row = await get_folder(container, folder)
    message = await trash.trash_file(folder_row, blob, current_actor(), app_services().storage)
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
    await service.get_file(await get_folder(container, folder), blob, current_actor())
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
    actor = current_actor()
    await service.get_file(folder_row, blob, actor)
    version = await repository.live_version(folder_row.id, blob, version_id)
    if version is None or not service.may_see(version.scan_state, actor):
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
    return await trash.list_trash(folder_row, current_actor(), services.settings)


@bp.post("/<container>/<folder>/trash/<blob>/restore")
@allow(ADMIN, Scope.FOLDER)
@validate_response(Message)
async def restore_trashed(container: str, folder: str, blob: str) -> Message:
    """Bring a deleted file back with its versions (409 if a file of that name exists now)."""
    message = await trash.restore_trashed(
        await get_folder(container, folder), blob, current_actor(), app_services().storage
    )
    return Message(message=message)


@bp.delete("/<container>/<folder>/trash/<blob>")
@allow(ADMIN, Scope.FOLDER, recent_auth=True)
@validate_request(PurgeRequest)
@validate_response(Message)
async def purge_trashed(container: str, folder: str, blob: str, data: PurgeRequest) -> Message:
    """Delete a file in the trash for good (body {confirmation: "DELETE"})."""
    message = await trash.purge_trashed(
        await get_folder(container, folder),
        blob,
        data.confirmation,
        current_actor(),
        app_services().storage,
    )
    return Message(message=message)


# Thumbnails and the in-app viewer (bff/files/thumbnails.py, bff/files/viewer.py).


@bp.get("/<container>/<folder>/<blob>/thumbnail/<version_id>")
@allow(
    ANY_ROLE,
    Scope.FOLDER,
    link=("container", "folder", "blob", "version_id"),
    link_purpose=thumbnails.THUMBNAIL_LINK,
    link_required=True,
)
async def thumbnail(container: str, folder: str, blob: str, version_id: str) -> Response:
    """A file's thumbnail (WebP), by the link its folder's listing gave (that listing's audit
    entry covers it); 404 once the file has changed (the listing then gives a new link)."""
    picture = await thumbnails.read_thumbnail(
        app_services().storage, container, folder, blob, version_id, current_actor()
    )
    return Response(
        picture,
        content_type=thumbnails.WEBP,
        headers=rendered_headers(thumbnails.THUMBNAIL_LINK_STEP),
    )


@bp.get("/<container>/<folder>/<blob>/viewer")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(ViewerOpen)
async def open_viewer(container: str, folder: str, blob: str) -> ViewerOpen:
    """Open a file in the in-app viewer: one audited view (`file_view`, "in the viewer"); the
    pages or content it links to, for this session and content version until expiresAt, are
    covered by that entry. Not for emergency grants (they open the original: `view`)."""
    services = app_services()
    folder_row = await get_folder(container, folder)
    opened = await viewer.open_viewer(
        folder_row,
        blob,
        actor=current_actor(),
        session_id=current_principal().session_id,
        settings=services.settings,
        storage=services.storage,
        workers=services.workers,
        cache=services.page_cache,
    )
    row = await service.get_file(folder_row, blob, current_actor())  # held since: not there
    # The text layer's links, of this session and version, only when its words are stored.
    text_layer = thumbnails.content_id(row.version_id) == opened.version_id and (
        await has_text_layer(row.id, row.version_id)
    )
    words_url = find_url = None
    if text_layer:
        words_url, find_url = text_links(
            services.settings,
            current_principal().session_id,
            container,
            folder,
            blob,
            opened.version_id,
        )
    return ViewerOpen(
        kind=opened.kind,
        name=row.name,
        contentType=row.content_type,
        contentLength=row.size,
        versionId=opened.version_id,
        pageCount=opened.page_count,
        pageUrl=opened.page_url,
        pageWidths=list(viewer.PAGE_WIDTHS),
        imageUrl=opened.content_url if opened.kind == "image" else None,
        imageReduced=opened.reduced,
        originalDownload=opened.original_download,
        textUrl=opened.content_url if opened.kind == "text" else None,
        htmlUrl=opened.html_url,
        reason=opened.reason,
        activeContent=row.active_content,
        displayable=row.displayable,
        expiresAt=opened.expires_at,
        textLayer=text_layer,
        wordsUrl=words_url,
        findUrl=find_url,
    )


# Each of the viewer's routes opens by a link of its own purpose only: a PDF's page link
# never opens the content route (which refuses PDFs anyway).
_VIEWER_LINK = {
    "link": ("container", "folder", "blob", "version_id"),
    "link_purpose": viewer.VIEWER_LINK,
    "link_required": True,
}
_VIEWER_CONTENT_LINK = {**_VIEWER_LINK, "link_purpose": viewer.VIEWER_CONTENT_LINK}
_VIEWER_HTML_LINK = {**_VIEWER_LINK, "link_purpose": viewer.VIEWER_HTML_LINK}
_VIEWER_TEXT_LINK = {**_VIEWER_LINK, "link_purpose": viewer.VIEWER_TEXT_LINK}
# A document's HTML page: nothing but its own inline styles and data: images, no script
# (default-src 'none', and a sandbox without allow-scripts), framed by the app's own pages only
# (the app's X-Frame-Options DENY gives way to frame-ancestors in every browser that knows it).
# The sandbox keeps the app's origin (allow-same-origin, as the viewer's frame does): the
# viewer reads the frame's selection to report a copy (audited `file_copy`); a page that runs
# no script can do nothing with its origin.
HTML_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'; base-uri 'none'; form-action 'none'; sandbox allow-same-origin"
)


@bp.get("/<container>/<folder>/<blob>/viewer/<version_id>/pages/<int:page>")
@allow(ANY_ROLE, Scope.FOLDER, **_VIEWER_LINK)  # type: ignore[arg-type]
@validate_querystring(PageQuery)
async def viewer_page(
    container: str, folder: str, blob: str, version_id: str, page: int, query_args: PageQuery
) -> Response:
    """A PDF's page as WebP at a width (snapped up to one of the viewer's widths), by the
    viewer session's link (its audit entry covers every page)."""
    services = app_services()
    settings = services.settings
    picture = await viewer.page_image(
        container,
        folder,
        blob,
        version_id,
        page,
        query_args.width,
        actor=current_actor(),
        settings=settings,
        storage=services.storage,
        workers=services.workers,
        cache=services.page_cache,
    )
    return Response(
        picture,
        content_type=thumbnails.WEBP,
        headers=rendered_headers(settings.preview_link_seconds),
    )


@bp.get("/<container>/<folder>/<blob>/viewer/<version_id>/image")
@allow(ANY_ROLE, Scope.FOLDER, **_VIEWER_LINK)  # type: ignore[arg-type]
async def viewer_image(container: str, folder: str, blob: str, version_id: str) -> Response:
    """The reduced copy (WebP) of an image too large to hand to the browser, rendered in the
    worker pool, by the viewer session's link (its audit entry covers it)."""
    services = app_services()
    settings = services.settings
    picture = await viewer.reduced_picture(
        container,
        folder,
        blob,
        version_id,
        actor=current_actor(),
        settings=settings,
        storage=services.storage,
        workers=services.workers,
        cache=services.page_cache,
    )
    return Response(
        picture,
        content_type=thumbnails.WEBP,
        headers=rendered_headers(settings.preview_link_seconds),
    )


@bp.get("/<container>/<folder>/<blob>/viewer/<version_id>/content")
@allow(ANY_ROLE, Scope.FOLDER, **_VIEWER_CONTENT_LINK)  # type: ignore[arg-type]
async def viewer_content(container: str, folder: str, blob: str, version_id: str) -> Response:
    """An image's or a text's bytes for the viewer (HTTP Range supported), by the viewer
    session's content link (its audit entry covers them); never redirected to another origin.
    Never a PDF's (404): the viewer shows its pages."""
    await viewer.content_or_404(
        container, folder, blob, version_id, current_actor(), app_services().settings
    )
    return await _serve(container, folder, blob, None, may_redirect=False)


async def _document(
    container: str, folder: str, blob: str, version_id: str, document: viewer.Document
) -> bytes:
    """A document's rendering for the viewer (bff/files/viewer.py `rendered_document`)."""
    services = app_services()
    return await viewer.rendered_document(
        container,
        folder,
        blob,
        version_id,
        document,
        actor=current_actor(),
        settings=services.settings,
        storage=services.storage,
        workers=services.workers,
        cache=services.page_cache,
    )


@bp.get("/<container>/<folder>/<blob>/viewer/<version_id>/html")
@allow(ANY_ROLE, Scope.FOLDER, **_VIEWER_HTML_LINK)  # type: ignore[arg-type]
async def viewer_html(container: str, folder: str, blob: str, version_id: str) -> Response:
    """A Word .docx as one sanitised HTML page rendered in the worker pool, by the viewer
    session's HTML link (its audit entry covers it): a CSP that allows no script, no remote
    resource and no form, sandboxed (its origin kept: the viewer reports copies from it); 404
    once the file has changed or is held."""
    page = await _document(container, folder, blob, version_id, "docx")
    headers = rendered_headers(app_services().settings.preview_link_seconds)
    headers["Content-Security-Policy"] = HTML_CSP
    headers["X-Frame-Options"] = "SAMEORIGIN"
    return Response(page, content_type="text/html; charset=utf-8", headers=headers)


@bp.get("/<container>/<folder>/<blob>/viewer/<version_id>/text")
@allow(ANY_ROLE, Scope.FOLDER, **_VIEWER_TEXT_LINK)  # type: ignore[arg-type]
async def viewer_text(container: str, folder: str, blob: str, version_id: str) -> Response:
    """An RTF document's plain text, read in the worker pool, by the viewer session's text
    link (its audit entry covers it)."""
    text = await _document(container, folder, blob, version_id, "rtf")
    return Response(
        text,
        content_type="text/plain; charset=utf-8",
        headers=rendered_headers(app_services().settings.preview_link_seconds),
    )
