"""The intake's API, /api/intake (issue 51): every route for admins and the staff granted the
intake permission (`@allow(..., intake=True)`: 403 for everyone else, who see nothing of it).
No patient detail in any URL: items by id, folders in the body."""

from __future__ import annotations

from quart import Blueprint, Response, request
from quart_schema import validate_querystring, validate_request, validate_response

from bff.auth.policy import ANY_ROLE, allow, current_principal
from bff.errors import ApiError
from bff.files import upload as upload_limits
from bff.files.delivery import rendered_headers, send_view
from bff.files.thumbnails import THUMBNAIL_LINK_STEP, WEBP
from bff.intake import access, filing, reshaping, service, thumbnails
from bff.intake.batch import BatchForm
from bff.intake.models import Source
from bff.intake.schemas import (
    DeleteItem,
    FiledItem,
    FileItem,
    IntakeItemOut,
    IntakeItems,
    ItemMessage,
    ItemsQuery,
    RotateItem,
    SplitDone,
    SplitItem,
    UploadedBatch,
    UploadedItem,
)
from bff.request_context import current_actor
from bff.services import AppServices, app_services
from bff.streaming import IDLE_SECONDS, streamed_body

bp = Blueprint("intake", __name__, url_prefix="/api/intake")


def _workers(services: AppServices) -> reshaping.Workers:
    """Where a PDF's pages are worked on: the app's worker pool."""
    return reshaping.Workers(services.workers, services.settings)


@bp.get("/items")
@allow(ANY_ROLE, intake=True)
@validate_querystring(ItemsQuery)
@validate_response(IntakeItems)
async def list_items(query_args: ItemsQuery) -> IntakeItems:
    """The inbox: a page of items, newest first (status new by default; or filed, deleted,
    all), each with its source, pages, status and suggestion, and its thumbnail's link for
    this session (`thumbnailUrl`; null for an item without one)."""
    return await filing.list_items(
        query_args.page,
        query_args.pageSize,
        query_args.status,
        current_actor(),
        _thumbnail_links(),
    )


def _thumbnail_links() -> thumbnails.Links:
    """The thumbnails' links of this request's session (bff/intake/thumbnails.py)."""
    return thumbnails.links(app_services().settings, current_principal().session_id)


@bp.get("/items/<int:item_id>")
@allow(ANY_ROLE, intake=True)
@validate_response(IntakeItemOut)
async def get_item(item_id: int) -> IntakeItemOut:
    """One item (audited `intake_view`, in the folder it was filed to or suggested for)."""
    item = await service.find_item(item_id)
    await access.record_read(current_actor(), item, "detail")
    return service.item_out(item, _thumbnail_links()(item))


@bp.get("/items/<int:item_id>/thumbnail")
@allow(ANY_ROLE, intake=True, link=("item_id",), link_purpose=thumbnails.THUMBNAIL_LINK)
async def item_thumbnail(item_id: int) -> Response:
    """An item's thumbnail: page 1 of a PDF, or an image, as a small WebP, the one stored when
    the item was routed or turned, else drawn in the worker pool now (audited `intake_view`,
    "thumbnail"), by the session's header or the link the inbox's listing gave
    (`thumbnailUrl`, for an <img>). 410 once filed; 422 with the reason for a type without one
    (a .docx), one over BFF_PREVIEW_MAX_MB or a document that cannot be drawn (a damaged PDF);
    503 when none is stored and the worker pool is full. Kept by the browser only (private), a
    few minutes: the link names the item's content version."""
    services = app_services()
    picture = await thumbnails.item_thumbnail(
        item_id,
        current_actor(),
        settings=services.settings,
        storage=services.storage,
        workers=services.workers,
        cache=services.page_cache,
    )
    return Response(picture, content_type=WEBP, headers=rendered_headers(THUMBNAIL_LINK_STEP))


@bp.get("/items/<int:item_id>/content")
@allow(ANY_ROLE, intake=True)
async def item_content(item_id: int) -> Response:
    """An item's bytes for its thumbnail and the viewer (sent as every file view is sent:
    inline only for safe types, sandboxed, never cached)."""
    services = app_services()
    source = await filing.open_content(item_id, current_actor(), services.storage)
    offload = services.settings.view_offload
    return await send_view(
        source, offload, services.storage, services.settings.view_offload_seconds
    )


@bp.post("/items")
@allow(ANY_ROLE, intake=True)
@validate_response(UploadedBatch, 201)
async def upload_batch() -> tuple[UploadedBatch, int]:
    """Upload a batch of scans as multipart/form-data (several `file` parts): each screened
    and taken in as an item (the same content twice: its existing item, `duplicate`; content
    the scan or the checks refused: `refused`, nothing kept). The whole body is held to the
    upload limit, as one upload's is."""
    services = app_services()
    limit = services.settings.max_upload_bytes
    upload_limits.check_declared_size(request.content_length, limit)
    form = BatchForm(
        streamed_body(),
        request.headers.get("Content-Type", ""),
        IDLE_SECONDS,
        max_file=limit,
        too_large=upload_limits.too_large(limit),
    )
    actor = current_actor()
    results: list[UploadedItem] = []
    async for part, chunks in form.files():
        arrival = service.Arrival(Source.UPLOAD, part.filename, part.content_type)
        shown = service.display_name(part.filename)
        try:
            item, new = await service.take_in(chunks, arrival, services.storage, actor)
        except ApiError as refusal:
            if refusal.status != 422:
                raise
            async for _ in chunks:  # the rest of a part refused as it arrived
                pass
            results.append(UploadedItem(fileName=shown, refused=refusal.message))
            continue
        results.append(UploadedItem(fileName=shown, item=service.item_out(item), duplicate=not new))
    return UploadedBatch(items=results), 201


@bp.post("/items/<int:item_id>/file")
@allow(ANY_ROLE, intake=True)
@validate_request(FileItem)
@validate_response(FiledItem)
async def file_item(item_id: int, data: FileItem) -> FiledItem:
    """File an item to a patient's folder (the caller must see it: 404 otherwise) under the
    given name or its own; it appears in the folder as an upload does. 409 when someone else
    filed or deleted it first (who, when), or the folder has a file of that name."""
    item = await filing.file_item(item_id, data, current_actor(), app_services().storage)
    return FiledItem(message=f"Filed as {item.filed_name}", item=service.item_out(item))


@bp.post("/items/<int:item_id>/delete")
@allow(ANY_ROLE, intake=True)
@validate_request(DeleteItem)
@validate_response(ItemMessage)
async def delete_item(item_id: int, data: DeleteItem) -> ItemMessage:
    """Delete an item with a reason (required); 409 when it was filed or deleted already."""
    item = await filing.delete_item(item_id, data.reason, current_actor())
    return ItemMessage(message="Item deleted", item=service.item_out(item))


@bp.post("/items/<int:item_id>/split")
@allow(ANY_ROLE, intake=True)
@validate_request(SplitItem)
@validate_response(SplitDone)
async def split_item(item_id: int, data: SplitItem) -> SplitDone:
    """Split a PDF item into new items by page ranges; the original is deleted (the split its
    reason). 400 for another type or pages it does not have; 409 once filed or deleted."""
    services = app_services()
    made = await reshaping.split_item(
        item_id, list(data.ranges), current_actor(), services.storage, _workers(services)
    )
    return SplitDone(
        message=f"Split into {len(made)} items", items=[service.item_out(item) for item in made]
    )


@bp.post("/items/<int:item_id>/rotate")
@allow(ANY_ROLE, intake=True)
@validate_request(RotateItem)
@validate_response(IntakeItemOut)
async def rotate_item(item_id: int, data: RotateItem) -> IntakeItemOut:
    """Turn a PDF item's pages (all, or those given) clockwise by 90, 180 or 270 degrees."""
    services = app_services()
    item = await reshaping.rotate_item(
        item_id, data.degrees, data.pages, current_actor(), services.storage, _workers(services)
    )
    return service.item_out(item)
