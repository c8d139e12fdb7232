"""Verifying a SmartToken link and opening (or refusing) an emergency grant.

Every attempt is audited with the client address and, internally, why it failed; the responder
sees one neutral answer whatever the reason. Failed attempts are counted per address and per
token (429 when over the limit) so signatures cannot be guessed; a correct signature is never
held back by failures of others.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from bff.audit.service import Actor, record, record_alone
from bff.db import transaction
from bff.emergency import repository
from bff.emergency.grants import EmergencyAccess, responder
from bff.emergency.models import EmergencyGrant
from bff.emergency.schemas import EmergencyView
from bff.errors import ApiError
from bff.files.service import folder_listing
from bff.live.events import ADMINS, EMERGENCY_OPENED, publish
from bff.throttle import FailureCounter, Limit, minutes_text
from bff.tokens import repository as tokens
from bff.tokens.models import TokenStatus
from bff.tokens.signing import signature_matches
from config.settings import Settings


class VerifyThrottle:
    """Failed verifications per client address and per token."""

    def __init__(self, settings: Settings) -> None:
        self._counter = FailureCounter(settings, "bff-verify", settings.login_window_seconds)
        self._per_address = settings.verify_max_failures_per_address
        self._per_token = settings.verify_max_failures_per_token

    def _keys(self, token_id: str, address: str) -> list[Limit]:
        return [
            Limit("addr:" + address, self._per_address),
            Limit("token:" + token_id, self._per_token),
        ]

    async def check(self, token_id: str, address: str) -> None:
        """429 while the address or the token is over its limit."""
        wait = await self._counter.blocked(self._keys(token_id, address))
        if wait is not None:
            raise ApiError(
                429,
                f"Too many attempts. Please wait {minutes_text(wait)} and scan the token again.",
                {"Retry-After": str(wait)},
            )

    async def failed(self, token_id: str, address: str) -> None:
        """Count a failed attempt."""
        await self._counter.failed(self._keys(token_id, address))


def _stranger(address: str) -> Actor:
    return Actor(None, "Unauthenticated visitor", "", address)


async def verify(
    token_id: str, signature: str, address: str, settings: Settings, throttle: VerifyThrottle
) -> EmergencyGrant | None:
    """A new grant when the link is genuine and its token assigned; None (audited) otherwise."""
    if not signature_matches(settings, token_id, signature):
        await throttle.check(token_id, address)
        await throttle.failed(token_id, address)
        await _refused(token_id, address, "bad signature")
        return None
    token = await tokens.token_by_token_id(token_id)
    if token is None:
        await _refused(token_id, address, "no such token (deleted)")
        return None
    if token.status is not TokenStatus.ASSIGNED or token.folder is None:
        await _refused(token_id, address, f"token {token.status}")
        return None
    now = datetime.now(UTC)
    async with transaction() as conn:
        expires_at = now + timedelta(minutes=settings.emergency_minutes)
        grant = await repository.open_grant(
            conn, secrets.token_urlsafe(32), token, expires_at, address, now
        )
        await record(
            conn,
            responder(token_id, address),
            "emergency_access",
            container=token.folder.container.name,
            folder=token.folder.name,
            details=f"token={token_id}; until {grant.expires_at.isoformat(timespec='seconds')}",
        )
        publish(
            EMERGENCY_OPENED,
            {
                "tokenId": token_id,
                "container": token.folder.container.name,
                "folder": token.folder.name,
            },
            [ADMINS],
        )
    return grant


async def _refused(token_id: str, address: str, reason: str) -> None:
    await record_alone(
        _stranger(address), "emergency_refused", details=f"token={token_id[:64]}; {reason}"
    )


async def view(access: EmergencyAccess, actor: Actor) -> EmergencyView:
    """What the responder's page shows (audited like a folder listing)."""
    listing = await folder_listing(access.folder_id, access.container, access.folder, actor)
    return EmergencyView(
        patientName=access.patient_name,
        patientDateOfBirth=access.patient_date_of_birth,
        containerName=access.container,
        folderName=access.folder,
        expiresAt=access.expires_at,
        hasProfileImage=listing.hasProfileImage,
        files=listing.blobs,
    )


async def end(access: EmergencyAccess, actor: Actor) -> None:
    """The responder closes access before it expires (audited with the grant's folder)."""
    async with transaction() as conn:
        await repository.delete_grant(conn, access.grant_id)
        await record(
            conn,
            actor,
            "emergency_end",
            container=access.container,
            folder=access.folder,
            details=f"token={access.token_id}; ended by the responder",
        )
