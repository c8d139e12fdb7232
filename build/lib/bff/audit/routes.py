"""The audit log API (admin only): GET /api/blobs/audit."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from bff.audit.models import AuditLog
from bff.audit.schemas import AuditEntry, AuditPage, AuditQuery
from bff.auth.policy import ADMIN, allow

bp = Blueprint("audit", __name__, url_prefix="/api/blobs")


@bp.get("/audit")
@allow(ADMIN)
@validate_querystring(AuditQuery)
@validate_response(AuditPage)
async def audit_logs(query_args: AuditQuery) -> AuditPage:
    """Audit log entries, newest first, filtered and paged by cursor."""
    a = query_args
    filters = {
        "operation": a.operation,
        "user_id": a.userId,
        "container_name": a.containerName,
        "folder_name": a.folderName,
        "timestamp__gte": a.since,
        "timestamp__lt": a.until,
        "id__lt": a.cursor,
    }
    query = AuditLog.filter(**{k: v for k, v in filters.items() if v is not None})
    rows = await query.order_by("-id").limit(a.limit + 1)
    more = len(rows) > a.limit
    rows = rows[: a.limit]
    return AuditPage(
        auditLogs=[
            AuditEntry(
                id=r.id,
                userId=r.user_id,
                name=r.name,
                role=r.role,
                operation=r.operation,
                containerName=r.container_name,
                folderName=r.folder_name,
                blobName=r.blob_name,
                clientAddress=r.client_address,
                details=r.details,
                timestamp=r.timestamp,
            )
            for r in rows
        ],
        nextCursor=rows[-1].id if more else None,
    )
