"""Reports from the audit log: a patient folder's access report (the accounting of disclosures
a patient may ask for) and CSV exports of it and of the log's filtered view.

Exports stream: entries are read a batch at a time by id, so memory does not grow with the
report. Every report and export is itself audited before anything of it is answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

from bff.audit import repository
from bff.audit.models import AuditLog
from bff.audit.schemas import AuditQuery, ReportPage, ReportQuery
from bff.audit.service import Actor, log_filter, record_alone, to_schema
from bff.csvfile import Cell, CsvWriter

CSV_HEADER = (
    "Entry",
    "Time (UTC)",
    "User id",
    "User",
    "Role",
    "Operation",
    "Container",
    "Folder",
    "File",
    "From address",
    "Details",
)
_BATCH = 1000


def csv_row(entry: AuditLog) -> list[Cell]:
    """One entry as a CSV row (CSV_HEADER's columns)."""
    when = entry.timestamp.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return [
        entry.id,
        when,
        entry.user_id,
        entry.name,
        entry.role,
        entry.operation,
        entry.container_name,
        entry.folder_name,
        entry.blob_name,
        entry.client_address,
        entry.details,
    ]


async def csv_stream(where: repository.AuditFilter, *, oldest_first: bool) -> AsyncIterator[bytes]:
    """Every entry matching where as CSV (bff/csvfile.py), a batch at a time; entries written
    after the export began are not part of it."""
    writer = CsvWriter()
    header = writer.encode([CSV_HEADER])
    head = await repository.head()
    up_to = head[0] if head else 0
    cursor: int | None = None
    while True:
        rows = await repository.entries_page(
            where,
            _BATCH,
            after_id=cursor if oldest_first else None,
            before_id=None if oldest_first else cursor,
            up_to_id=up_to,
            oldest_first=oldest_first,
        )
        yield header + writer.encode(csv_row(row) for row in rows)
        header = b""
        if len(rows) < _BATCH:
            return
        cursor = rows[-1].id


def _filters_text(query: AuditQuery) -> str:
    given = {
        "operation": query.operation,
        "userId": query.userId,
        "user": query.user,
        "containerName": query.containerName,
        "folderName": query.folderName,
        "since": query.since.isoformat() if query.since else None,
        "until": query.until.isoformat() if query.until else None,
    }
    return "; ".join(f"{k}={v}" for k, v in given.items() if v is not None) or "all entries"


async def export_log(actor: Actor, query: AuditQuery) -> AsyncIterator[bytes]:
    """The audit log's entries matching query's filters as CSV, newest first (audited)."""
    await record_alone(actor, "audit_export", details=f"audit log CSV: {_filters_text(query)}")
    return csv_stream(log_filter(query), oldest_first=False)


def _report_filter(query: ReportQuery) -> repository.AuditFilter:
    return repository.AuditFilter(
        folder_of=(query.containerName, query.folderName), since=query.since, until=query.until
    )


def _period(query: ReportQuery) -> str:
    since = query.since.isoformat() if query.since else "the start"
    until = query.until.isoformat() if query.until else "now"
    return f"from {since} until {until}"


async def report_page(actor: Actor, query: ReportQuery) -> ReportPage:
    """One page of a folder's access report, oldest first or newest first (audited)."""
    await record_alone(
        actor,
        "audit_report",
        container=query.containerName,
        folder=query.folderName,
        details=f"access report {_period(query)}",
    )
    oldest_first = query.order == "oldest"
    rows = await repository.entries_page(
        _report_filter(query),
        query.limit + 1,
        after_id=query.cursor if oldest_first else None,
        before_id=None if oldest_first else query.cursor,
        oldest_first=oldest_first,
    )
    more = len(rows) > query.limit
    rows = rows[: query.limit]
    return ReportPage(
        entries=[to_schema(r) for r in rows], nextCursor=rows[-1].id if more else None
    )


async def export_report(actor: Actor, query: ReportQuery) -> AsyncIterator[bytes]:
    """A folder's whole access report as CSV, oldest first (audited)."""
    await record_alone(
        actor,
        "audit_export",
        container=query.containerName,
        folder=query.folderName,
        details=f"access report CSV {_period(query)}",
    )
    return csv_stream(_report_filter(query), oldest_first=True)


def report_file_name(query: ReportQuery) -> str:
    """The CSV's file name: the folder and the dates."""
    since = query.since.date().isoformat() if query.since else "start"
    until = query.until.date().isoformat() if query.until else _today()
    return f"access-report_{query.containerName}_{query.folderName}_{since}_{until}.csv"


def log_file_name() -> str:
    """The audit log export's file name."""
    return f"audit-log_{_today()}.csv"


def _today() -> str:
    return datetime.now(UTC).date().isoformat()
