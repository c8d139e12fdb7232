"""The audit log's signed objects in the file storage, under the reserved prefix `.bff-audit/`:
their signature (an HMAC with a key derived from the audit key), reading and writing them, and
the alert a verification that found a break leaves for the web app and the operator.

A signed object is self-contained JSON, `{"body": ..., "signature": ...}`: a backup copied
elsewhere verifies with the same key, and someone without the key can neither forge nor move one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bff.audit.service import audit_keys
from storage.base import NotFound, ObjectKey, Storage

log = logging.getLogger(__name__)

PREFIX = ".bff-audit"
ALERT = f"{PREFIX}/alert.json"
_MAX_OBJECT = 64 * 1024  # a checkpoint is ~400 bytes: refuse to read a planted giant


@dataclass(frozen=True)
class Break:
    """The first entry where the log stops being what it was."""

    entry_id: int
    reason: str


def _sign(body: dict[str, Any]) -> str:
    message = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(audit_keys().checkpoints, message, hashlib.sha256).hexdigest()


def signed(body: dict[str, Any]) -> bytes:
    """The stored bytes of body with its signature."""
    return json.dumps({"body": body, "signature": _sign(body)}, indent=1).encode() + b"\n"


def unsigned(data: bytes) -> dict[str, Any] | None:
    """The body of a signed object, or None if it is not one or its signature does not match."""
    try:
        document = json.loads(data)
        body, signature = document["body"], document["signature"]
        if not isinstance(body, dict) or not isinstance(signature, str):
            return None
    except (ValueError, KeyError, TypeError):
        return None
    return body if hmac.compare_digest(_sign(body), signature) else None


def stamp(moment: datetime) -> str:
    """A signed object's time as a break's reason names it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def read_object(storage: Storage, key: str) -> bytes | None:
    """A small object's bytes (None if absent; at most _MAX_OBJECT + 1 bytes are read)."""
    try:
        stream = await storage.open_object(ObjectKey.parse(key), length=_MAX_OBJECT + 1)
    except NotFound:
        return None
    async with stream:
        return b"".join([chunk async for chunk in stream])


async def write_object(storage: Storage, key: str, data: bytes) -> None:
    """Store a small object's bytes under key."""

    async def chunks() -> AsyncIterator[bytes]:
        yield data

    await storage.write_object(ObjectKey.parse(key), chunks(), content_type="application/json")


@dataclass(frozen=True)
class Alert:
    """A break the periodic verification found."""

    entry_id: int
    reason: str
    found_at: datetime


async def read_alert(storage: Storage) -> Alert | None:
    """The break the periodic verification found, if any (an altered alert is one too)."""
    data = await read_object(storage, ALERT)
    if data is None:
        return None
    body = unsigned(data)
    try:
        assert body is not None
        return Alert(
            int(body["entryId"]), str(body["reason"]), datetime.fromisoformat(body["foundAt"])
        )
    except (AssertionError, KeyError, TypeError, ValueError):
        return Alert(0, "the verification alert itself was altered", datetime.now(UTC))


async def raise_alert(storage: Storage, broken: Break) -> None:
    """Keep a break as the signed alert (an alert of the same entry keeps when it was found)."""
    current = await read_alert(storage)
    if current is not None and current.entry_id == broken.entry_id:
        return  # already raised: keep when it was first found
    log.error("Audit log verification failed at entry %d: %s", broken.entry_id, broken.reason)
    body = {
        "entryId": broken.entry_id,
        "reason": broken.reason,
        "foundAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    await write_object(storage, ALERT, signed(body))
