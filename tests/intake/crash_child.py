"""An app process for the intake's crash tests (test_intake_crash.py): started on the test's
database, storage and clamd, it routes what is waiting as any instance does (its router starts
with the app) and stops dead at one named step: it writes the step's name to a marker file,
then waits forever, and the test SIGKILLs it (and its worker processes) there, the way the
scan folder's and the mailbox's crash tests kill their takers. Nothing in the product knows of
these steps: each is a patch of the product's own function, made here before the app starts.

Run as `python -m tests.intake.crash_child CONFIG` (a JSON file: the settings, the step, the
marker, and for the upload case the batch to send and who sends it)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from quart.testing.app import TestApp

from bff.app import create_app
from bff.audit import service as audit_service
from bff.files import staging
from bff.intake import repository, reshaping, routing, service, sheet_policy
from bff.intake.routing_work import WorkArea
from config.settings import load_settings
from tests.intake.desk import batch_body

# A claim's life in this process: short, so the test sees a dead process's claims run out.
CLAIM_SECONDS = 5.0

# The steps, in the order a cover-sheet batch (two sheets, two documents) passes them.
STEPS = {
    "claimed": "the routing's claim committed, the scan's barcodes not read yet",
    "between_parts": "the split's first part taken in (held), the second not yet",
    "split": "the split committed (original deleted, parts claimed), no part filed yet",
    "staged": "a part's bytes staged for its folder, the filing's transaction not begun",
    "published": "a part moved to its name in the folder, its transaction not committed",
    "committed": "a part's filing committed, its intake copy and its claim not yet released",
    "between_filings": "the first part filed, the second not begun",
    "suggested": "a letter's suggestion kept, its routing not yet marked done",
    "batch_commit": "an upload batch's second file inside its commit (bytes moved, not committed)",
}

_marker: Path


def _reached(step: str) -> None:
    _marker.write_text(step)


async def _hang(step: str) -> NoReturn:
    """Signal the step, then wait forever (the test kills the process here)."""
    _reached(step)
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def _on_call(number: int, step: str, real: Callable[..., Any]) -> Callable[..., Any]:
    """real, except that its call `number` (1-based) stops at step."""
    calls = 0

    async def patched(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == number:
            await _hang(step)
        return await real(*args, **kwargs)

    return patched


def _at_crash_point(step: str, point: str) -> None:
    """Stop at the upload's own fault point (bff/files/staging.py CRASH_POINTS, the points the
    upload crash tests end a server at): the event loop stops there with it."""
    real = staging.crash_point

    def patched(name: str) -> None:
        if name == point:
            _reached(step)
            while True:
                time.sleep(3600)
        real(name)

    staging.crash_point = patched


def _patch(owner: object, name: str, number: int, step: str) -> None:
    """owner's function name, stopping at step on its call `number`."""
    setattr(owner, name, _on_call(number, step, getattr(owner, name)))


def arm(step: str) -> None:
    """Patch the product's function at step."""
    if step == "claimed":
        _patch(WorkArea, "codes", 1, step)
    elif step == "between_parts":
        _patch(reshaping, "take_in", 2, step)
    elif step == "split":
        _patch(sheet_policy, "refusal", 1, step)
    elif step in ("staged", "published", "committed"):
        name = {"staged": "after_write", "published": "after_publish", "committed": "after_commit"}
        _at_crash_point(step, name[step])
    elif step == "between_filings":
        _patch(routing, "file_item", 2, step)
    elif step == "suggested":
        _patch(repository, "end_routing", 1, step)
    elif step == "batch_commit":
        real = audit_service.record
        received = 0

        async def record(conn: Any, actor: Any, operation: str, **kwargs: Any) -> Any:
            nonlocal received
            if operation == "intake_received":
                received += 1
                if received == 2:
                    await _hang(step)
            return await real(conn, actor, operation, **kwargs)

        setattr(service, "record", record)  # noqa: B010 - the module's own name for it
    else:
        raise SystemExit(f"no such step: {step}")


async def main(config: dict[str, Any]) -> None:
    global _marker
    _marker = Path(config["marker"])
    routing.CLAIM_SECONDS = CLAIM_SECONDS
    arm(config["step"])
    settings = load_settings(**config["settings"])
    app = create_app(settings, bootstrap_admin=False)
    async with TestApp(app, startup_timeout=120, shutdown_timeout=10):
        if batch := config.get("batch"):
            files = [(name, await asyncio.to_thread(Path(path).read_bytes)) for name, path in batch]
            body, content_type = batch_body(files)
            headers = {**config["headers"], "Content-Type": content_type}
            await app.test_client().post("/api/intake/items", data=body, headers=headers)
        await asyncio.Event().wait()  # routing in the background until killed


if __name__ == "__main__":
    asyncio.run(main(json.loads(Path(sys.argv[1]).read_text())))
