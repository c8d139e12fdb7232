"""The audit log API (admin only): the log, its CSV export, a folder's access report, and the
log's verified state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from quart import Blueprint, Response
from quart_schema import document_response, validate_querystring, validate_response

from bff.audit import integrity, reports, service, signed
from bff.audit.schemas import (
    AuditBreak,
    AuditPage,
    AuditQuery,
    AuditStatus,
    ReportPage,
    ReportQuery,
)
from bff.auth.policy import ADMIN, allow
from bff.files.delivery import content_disposition
from bff.request_context import current_actor
from bff.services import app_services

bp = Blueprint("audit", __name__, url_prefix="/api/blobs")


def _json(model: BaseModel) -> dict[str, Any]:
    # The schema is documented, not validated by quart-schema, which refuses a route that may
    # also answer with a Response (the CSV): the model was validated when it was built.
    return model.model_dump(mode="json")


def _csv(body: AsyncIterator[bytes], file_name: str) -> Response:
    response = Response(body, content_type="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = content_disposition("attachment", file_name)
    response.headers["Cache-Control"] = "no-store"
    response.timeout = None  # a large export may take longer than the default response timeout
    return response


@bp.get("/audit")
@allow(ADMIN)
@validate_querystring(AuditQuery)
@document_response(AuditPage)
async def audit_logs(query_args: AuditQuery) -> dict[str, Any] | Response:
    """Audit log entries, newest first, filtered and paged by cursor; `format=csv` downloads
    every matching entry (audited)."""
    if query_args.format == "csv":
        body = await reports.export_log(current_actor(), query_args)
        return _csv(body, reports.log_file_name())
    return _json(await service.audit_page(query_args))


@bp.get("/audit/report")
@allow(ADMIN)
@validate_querystring(ReportQuery)
@document_response(ReportPage)
async def access_report(query_args: ReportQuery) -> dict[str, Any] | Response:
    """Every access to one patient folder's data, oldest first: who, role, what, when and from
    where (audited); `format=csv` downloads the whole report."""
    if query_args.format == "csv":
        body = await reports.export_report(current_actor(), query_args)
        return _csv(body, reports.report_file_name(query_args))
    return _json(await reports.report_page(current_actor(), query_args))


@bp.get("/audit/status")
@allow(ADMIN)
@validate_response(AuditStatus)
async def audit_status() -> AuditStatus:
    """The audit log's state: verified up to the latest signed checkpoint, or broken."""
    storage = app_services().storage
    latest, altered = await integrity.latest_checkpoint(storage)
    alert = await signed.read_alert(storage)
    broken = (
        AuditBreak(entryId=alert.entry_id, reason=alert.reason, foundAt=alert.found_at)
        if alert is not None
        else None
    )
    if altered and broken is None:
        broken = AuditBreak(
            entryId=0, reason="the latest checkpoint was altered", foundAt=datetime.now(UTC)
        )
    return AuditStatus(
        verifiedUpTo=latest.last_id if latest else None,
        verifiedAt=latest.time if latest else None,
        broken=broken,
    )
