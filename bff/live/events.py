"""Live events: the one list of event names, who receives each, and how services publish them.

Every event is a small JSON payload naming what changed, never file contents; the web app
reacts by refetching what it shows. Names and payloads:

- file:uploaded {container, folder, name}: admins and the users assigned that folder
- file:deleted {container, folder, name}: the same
- file:restored {container, folder, name}: the same (a file back from the trash)
- version:restored {container, folder, name}: the same (an earlier version made current)
- profile:changed {container, folder}: the same
- patient:changed {container, folder, by, at}: the same (the patient's name, date of birth or
  record number; by: the changer's display name, at: when, ISO 8601 UTC)
- file:preview {container, folder, name}: the same, when a file's thumbnail is ready
- file:indexed {container, folder, name, state}: the same, when a file's text has been read for
  search (state "ready": it is searchable) or could not be (state "failed"; the listing says why)
  (the file events of a held file, stored while the malware scanner was unavailable and not
  scanned yet, go to admins only, as the file itself: bff/files/service.py `announce`; its
  release on a clean scan is file:uploaded to the folder's users)
- assignments:changed {userId}: that user and admins
- users:changed {userId}: admins
- token:registered, token:revoked, token:reactivated, token:deleted {tokenId}: admins
- token:assigned {tokenId, container, folder}: admins
- token:reassigned {tokenId, previousTokenId, container, folder}: admins
- emergency:opened {tokenId, container, folder}: admins (an alert)
- emergency:refused {tokenId, reason}: admins (an alert), when a refused scan or tap names a
  registered token (reason: replayed, bad MAC, token revoked...; never sent to the responder)
- audit:created {id, operation}: admins
- file:quarantined {id, signature, container, folder, name}: admins (an alert), when the malware
  scanner found something in new content and it was kept in quarantine (bff/scan/)
- intake:received {id}, intake:changed {id} (its pages turned), intake:filed {id, container,
  folder, name}, intake:deleted {id} (deleted, or split into new items): admins
  and the staff granted the intake permission (worked out when sent, so a withdrawal takes
  effect at once: bff/intake/service.py `intake_rooms`)
- session:revoked {reason}: that session's (or user's) connections, which are then disconnected
  (reasons, which the web app words for the signed-out user: logout; logout-all (signed out
  from another session); password-changed (by an admin, or `users reset-password`);
  role-changed; account-deleted; expired; ended (found ended by the periodic check, cause
  unknown); mfa-changed and mfa-enrolled for the user's other sessions when a second factor
  changes; mfa-reset (an admin reset the second factor))
- live:resync {}: every connection of a process whose Redis link came back (after an outage,
  or at start): events of other processes may have been lost meanwhile, so refetch everything
- live:reconnect {reason}: every connection of a process that is stopping (SIGTERM), just
  before it drops their transport without ending their session: the client's library
  reconnects by itself (to another instance, or to this one restarted) with its usual backoff,
  and the client refetches on reconnecting (bff/live/server.py `LiveHub.drain`)
session:revoked, users:changed and assignments:changed also make every process forget the
cached sessions and assignments they name (bff/auth/session_cache.py), this one as soon as the
change commits.

A process with no live hub (the command line) announces what it publishes through Redis when
BFF_REDIS_URL is set (`announced`), so running processes forget and disconnect at once; without
Redis they find out within BFF_LIVE_SESSION_CHECK_SECONDS (bff/live/server.py).

Recipients are worked out when the event is sent, after the change has committed, from the
assignments as they are then: a nurse without the folder never receives its file events, and an
assignment added or removed changes that at once. Publishing never fails the request, and never
blocks it but for session:revoked: with Redis, the change's transaction ends only once every
process has heard it (bff/live/server.py's fence, at most a second), so a sign-out's answer means
the token is refused everywhere.
`python -m bff web-constants` writes these names into the web app (one source).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

import socketio

from bff.db import in_transaction, on_commit
from bff.services import running_services
from config.settings import Settings

log = logging.getLogger(__name__)

FILE_UPLOADED = "file:uploaded"
FILE_DELETED = "file:deleted"
FILE_RESTORED = "file:restored"
VERSION_RESTORED = "version:restored"
FILE_PREVIEW = "file:preview"
PROFILE_CHANGED = "profile:changed"
PATIENT_CHANGED = "patient:changed"
FILE_INDEXED = "file:indexed"
ASSIGNMENTS_CHANGED = "assignments:changed"
USERS_CHANGED = "users:changed"
TOKEN_REGISTERED = "token:registered"
TOKEN_ASSIGNED = "token:assigned"
TOKEN_REASSIGNED = "token:reassigned"
TOKEN_REVOKED = "token:revoked"
TOKEN_REACTIVATED = "token:reactivated"
TOKEN_DELETED = "token:deleted"
EMERGENCY_OPENED = "emergency:opened"
EMERGENCY_REFUSED = "emergency:refused"
AUDIT_CREATED = "audit:created"
FILE_QUARANTINED = "file:quarantined"
INTAKE_RECEIVED = "intake:received"
INTAKE_CHANGED = "intake:changed"
INTAKE_FILED = "intake:filed"
INTAKE_DELETED = "intake:deleted"
SESSION_REVOKED = "session:revoked"
LIVE_RESYNC = "live:resync"
LIVE_RECONNECT = "live:reconnect"

ALL_EVENTS = {
    name: value
    for name, value in sorted(globals().items())
    if name.isupper() and isinstance(value, str) and ":" in value
}

ADMINS = "admins"


def user_room(user_id: int) -> str:
    """Every connection of one user."""
    return f"user:{user_id}"


def session_room(session_id: str) -> str:
    """Every connection of one sign-in session."""
    return f"session:{session_id}"


# Rooms, or a function that works them out when the event is sent (after the commit).
Rooms = list[str] | Callable[[], Awaitable[list[str]]]


# Events published outside an app (the command line) inside `announced`, once committed.
_OUTSIDE: ContextVar[list[tuple[str, dict[str, Any], Rooms]] | None] = ContextVar(
    "bff_outside_events", default=None
)


def redis_channel(redis_url: str) -> str:
    """The pub/sub channel: Redis channels ignore the database number, so it names it."""
    database = urlsplit(redis_url).path.strip("/") or "0"
    return f"bff-live:{database}"


def publish(event: str, payload: dict[str, Any], rooms: Rooms) -> None:
    """Send event to rooms once the current transaction commits."""
    services = running_services()
    if services is None:  # the command line: nobody is connected to this process
        pending = _OUTSIDE.get()
        if pending is not None:

            async def keep() -> None:
                pending.append((event, payload, rooms))

            if in_transaction():
                on_commit(keep)
            else:
                pending.append((event, payload, rooms))
        return
    cache, send = services.session_cache, services.live.send

    async def deliver() -> None:
        if callable(rooms):
            try:
                targets = await rooms()
            except Exception as exc:  # noqa: BLE001 - a live event must never fail a request
                log.warning("Live event %s not sent: %s", event, type(exc).__name__)
                return
        else:
            targets = rooms
        cache.forget_for_event(event, payload, targets)  # this process now; others on receipt
        await send(event, payload, targets)

    on_commit(deliver)


@contextlib.asynccontextmanager
async def announced(settings: Settings) -> AsyncIterator[None]:
    """Outside a running app (the command line): what is published inside is sent through
    Redis to every running process at the end, when BFF_REDIS_URL is set."""
    pending: list[tuple[str, dict[str, Any], Rooms]] = []
    token = _OUTSIDE.set(pending)
    try:
        yield
    finally:
        _OUTSIDE.reset(token)
        if pending and settings.redis_url:
            await _send_through_redis(settings.redis_url, pending)


async def _send_through_redis(
    redis_url: str, events: list[tuple[str, dict[str, Any], Rooms]]
) -> None:
    manager = socketio.AsyncRedisManager(
        redis_url,
        channel=redis_channel(redis_url),
        write_only=True,
        redis_options={"socket_connect_timeout": 1, "socket_timeout": 2},
    )
    try:
        for event, payload, rooms in events:
            targets = await rooms() if callable(rooms) else rooms
            await manager.emit(event, payload, namespace="/", room=targets)
    except Exception as exc:  # noqa: BLE001 - the change is made; processes re-check anyway
        log.warning("Could not announce %d change(s) through Redis: %s", len(events), exc)
    finally:
        with contextlib.suppress(Exception):
            await manager.redis.aclose()
