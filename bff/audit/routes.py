"""The audit log API (admin only): GET /api/blobs/audit."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from bff.audit import service
from bff.audit.schemas import AuditPage, AuditQuery
from bff.auth.policy import ADMIN, allow

bp = Blueprint("audit", __name__, url_prefix="/api/blobs")


@bp.get("/audit")
@allow(ADMIN)
@validate_querystring(AuditQuery)
@validate_response(AuditPage)
async def audit_logs(query_args: AuditQuery) -> AuditPage:
    """Audit log entries, newest first, filtered and paged by cursor."""
    return await service.audit_page(query_args)
