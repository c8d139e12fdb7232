"""The quarantine and the scanner's state, for admins: /api/admin/quarantine*,
/api/admin/scanning."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from bff.audit.service import record_alone
from bff.auth.policy import ADMIN, allow
from bff.request_context import current_actor
from bff.scan import service
from bff.scan.models import Quarantined
from bff.scan.schemas import (
    QuarantinedOut,
    QuarantinePage,
    QuarantineQuery,
    ScanningState,
)
from bff.services import app_services
from bff.users.schemas import Message

bp = Blueprint("scan", __name__, url_prefix="/api/admin")


def _out(row: Quarantined) -> QuarantinedOut:
    return QuarantinedOut(
        id=row.id,
        container=row.container,
        folder=row.folder,
        name=row.name,
        signature=row.signature,
        size=row.size,
        uploadedById=row.uploaded_by_id,
        uploadedByName=row.uploaded_by_name,
        foundAt=row.found_at,
        reason="rescan" if row.reason == "rescan" else "upload",
        kept=bool(row.object_key),
    )


@bp.get("/quarantine")
@allow(ADMIN)
@validate_querystring(QuarantineQuery)
@validate_response(QuarantinePage)
async def list_quarantine(query_args: QuarantineQuery) -> QuarantinePage:
    """What the malware scanner found and kept in quarantine, newest first (audited)."""
    size = query_args.pageSize
    rows, total = await service.quarantine_page((query_args.page - 1) * size, size)
    await record_alone(
        current_actor(), "quarantine_list", details=f"page {query_args.page}: {len(rows)} shown"
    )
    return QuarantinePage(
        quarantined=[_out(row) for row in rows], total=total, page=query_args.page, pageSize=size
    )


@bp.delete("/quarantine/<int:quarantine_id>")
@allow(ADMIN, recent_auth=True)
@validate_response(Message)
async def delete_quarantined(quarantine_id: int) -> Message:
    """Remove a quarantined content for good: its bytes and its entry (audited)."""
    storage = app_services().storage
    await service.remove_quarantined(storage, quarantine_id, current_actor())
    return Message(message="The quarantined file was removed.")


@bp.get("/scanning")
@allow(ADMIN)
@validate_response(ScanningState)
async def scanning() -> ScanningState:
    """Whether a malware scanner is configured and answers now, and what it holds."""
    state = await service.scanner_state()
    return ScanningState(
        configured=state.configured,
        available=state.available,
        unavailable="hold" if state.unavailable == "hold" else "refuse",
        quarantined=state.quarantined,
        held=state.held,
    )
