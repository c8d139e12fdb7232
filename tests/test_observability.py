"""What operators watch, through the real app: /metrics only for allowed scrapers (refused
from elsewhere, through a proxy, with a wrong token), the liveness check, request ids on
responses, logs and audit entries, and the JSON log format."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from quart import Quart

from bff.audit.models import AuditLog
from bff.users.models import Role
from config.logs import JsonFormatter
from tests.conftest import make_settings, started_app
from tests.factories import make_staff
from tests.helpers import error_message

LOCAL = {"client": ("127.0.0.1", 40000)}
ELSEWHERE = {"client": ("203.0.113.9", 40000)}
TOKEN = "metrics-scrape-token-0123456789abcdef"


@pytest.fixture
async def scraped_app(database_url: str, run_dir: Path) -> AsyncIterator[Quart]:
    settings = make_settings(
        database_url, run_dir, metrics_allow="127.0.0.1,10.1.0.0/16", metrics_token=TOKEN
    )
    async with started_app(settings) as app:
        yield app


async def test_metrics_answer_allowed_addresses_and_the_token_only(scraped_app: Quart) -> None:
    client = scraped_app.test_client()
    await client.get("/api/health/live", scope_base=LOCAL)
    response = await client.get("/metrics", scope_base=LOCAL)
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain")
    text = await response.get_data(as_text=True)
    assert 'bff_http_requests_total{method="GET",route="/api/health/live",status="200"}' in text
    allowed_network = {"client": ("10.1.7.8", 40000)}
    assert (await client.get("/metrics", scope_base=allowed_network)).status_code == 200
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert (await client.get("/metrics", scope_base=ELSEWHERE, headers=bearer)).status_code == 200

    refusals: list[dict[str, Any]] = [
        {"scope_base": ELSEWHERE},  # not in BFF_METRICS_ALLOW
        {"scope_base": ELSEWHERE, "headers": {"Authorization": "Bearer wrong"}},
        {"scope_base": ELSEWHERE, "headers": {"Authorization": TOKEN}},  # not a bearer
        # Through a proxy: every client has the proxy's address (127.0.0.1), never enough.
        {"scope_base": LOCAL, "headers": {"X-Forwarded-For": "198.51.100.4"}},
        {"scope_base": LOCAL, "headers": {"X-Forwarded-For": "127.0.0.1"}},
        {"scope_base": LOCAL, "headers": {"Forwarded": "for=127.0.0.1"}},
        {"scope_base": LOCAL, "headers": {"X-Real-IP": "127.0.0.1"}},
    ]
    for refusal in refusals:
        response = await client.get("/metrics", **refusal)
        assert await error_message(response, 403) == "You don't have permission to do this.", (
            refusal
        )
    # Through a proxy, the token still opens it.
    proxied = {"X-Forwarded-For": "198.51.100.4", **bearer}
    assert (await client.get("/metrics", scope_base=LOCAL, headers=proxied)).status_code == 200


async def test_without_a_token_setting_no_bearer_opens_metrics(client: Any) -> None:
    response = await client.get(
        "/metrics", scope_base=ELSEWHERE, headers={"Authorization": "Bearer "}
    )
    assert response.status_code == 403


async def test_liveness_answers_without_touching_dependencies(client: Any) -> None:
    response = await client.get("/api/health/live")
    assert response.status_code == 200
    assert await response.get_json() == {"status": "ok"}


@pytest.fixture
def access_records() -> Iterator[list[logging.LogRecord]]:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    logger = logging.getLogger("bff.access")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


async def test_the_request_id_is_returned_logged_and_audited(
    client: Any, settings: Any, access_records: list[logging.LogRecord]
) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    sent = {**doctor.headers, "X-Request-ID": "lb-7f3a.1"}
    response = await client.get("/api/users", headers=sent)  # refused: audited
    assert response.status_code == 403
    assert response.headers["X-Request-ID"] == "lb-7f3a.1"
    entry = await AuditLog.filter(operation="access_denied").order_by("-id").first()
    assert entry is not None and entry.request_id == "lb-7f3a.1"
    record = access_records[-1]
    assert record.request_id == "lb-7f3a.1"  # type: ignore[attr-defined]
    assert record.route == "/api/users"  # type: ignore[attr-defined]
    assert record.user_id == doctor.user.id  # type: ignore[attr-defined]
    assert record.status == 403  # type: ignore[attr-defined]

    # An id that is not a plain short token is replaced by a generated one.
    for bad in ("a b", "x" * 65, "id\u00e9", ""):
        response = await client.get("/api/health/live", headers={"X-Request-ID": bad})
        generated = response.headers["X-Request-ID"]
        assert generated != bad and len(generated) == 32


async def test_the_access_log_names_route_templates_never_paths_or_queries(
    client: Any, settings: Any, access_records: list[logging.LogRecord]
) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    await client.get(
        "/api/blobs/ward-jones/patient-smith/results.pdf/view?link=secret-link",
        headers=doctor.headers,
    )
    record = access_records[-1]
    assert record.route == "/api/blobs/<container>/<folder>/<blob>/view"  # type: ignore[attr-defined]
    line = JsonFormatter().format(record)
    assert "smith" not in line and "secret-link" not in line and "jones" not in line
    entry = json.loads(line)
    assert entry["logger"] == "bff.access"
    assert entry["route"] == "/api/blobs/<container>/<folder>/<blob>/view"
    assert entry["method"] == "GET" and entry["status"] == 404
    assert entry["user_id"] == doctor.user.id and entry["request_id"]
    assert isinstance(entry["duration_ms"], float)


def exported_names() -> set[str]:
    """Every sample name bff/metrics.py exports (counters' _total, histograms' series)."""
    from prometheus_client import REGISTRY

    names = set()
    for family in REGISTRY.collect():
        if family.name.startswith("bff_"):
            names.update(sample.name for sample in family.samples)
            names.add(family.name + ("_total" if family.type == "counter" else ""))
            if family.type == "histogram":
                names.update(f"{family.name}_{s}" for s in ("bucket", "sum", "count"))
    return names


def test_the_dashboard_and_the_documented_alerts_use_only_exported_metrics() -> None:
    import re

    from bff import metrics  # noqa: F401 - registers them

    exported = exported_names()
    repo = Path(__file__).resolve().parents[1]
    dashboard = json.loads((repo / "config" / "grafana" / "bff-dashboard.json").read_text())
    expressions = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    docs = "".join(page.read_text() for page in (repo / "docs").glob("*.md"))
    used = set(re.findall(r"\bbff_[a-z_]+\b", "\n".join(expressions) + docs))
    # A database name, the PostgreSQL roles of the audit grants, the emergency and single
    # sign-on cookies and the text search configurations of search: not metrics.
    used -= {"bff_cluster", "bff_pending_uploads", "bff_app", "bff_owner", "bff_emergency"}
    used -= {"bff_oidc_browser"}  # single sign-on's browser cookie
    used -= {"bff_simple", "bff_english"}
    assert used - exported == set()
    assert len(dashboard["panels"]) >= 10
