"""Verifying a SmartToken link and opening (or refusing) an emergency grant.

Two kinds of link: a static signed link (`s` of four groups of eight), and an NTAG 424 DNA
SUN tap (`s` of 16: the truncated SDMMAC; the path carries the encrypted PICCData), which works
once. Every attempt is audited with the client address and, internally, why it failed; the
responder sees one neutral answer whatever the reason, and admins get a live alert when a
refusal names a registered token. Failed attempts are counted per address and per
token (429 when over the limit) so signatures cannot be guessed; a correct signature is never
held back by failures of others.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.audit.service import Actor, record, record_alone
from bff.containers.repository import folder_patient
from bff.db import transaction
from bff.emergency import repository
from bff.emergency.grants import EmergencyAccess, responder
from bff.emergency.models import EmergencyGrant
from bff.emergency.schemas import EmergencyView
from bff.errors import ApiError
from bff.files.service import folder_listing, has_profile_image
from bff.live.events import ADMINS, EMERGENCY_OPENED, EMERGENCY_REFUSED, publish
from bff.patients.schemas import PatientDetails
from bff.throttle import FailureCounter, Limit, minutes_text
from bff.tokens import repository as tokens
from bff.tokens import sun
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.signing import signature_matches
from bff.tokens.tagkeys import KeyUnavailable, open_sealed
from config.settings import Settings

# What JavaScript's encodeURIComponent leaves as it is (the web app builds the same path).
URI_COMPONENT_SAFE = "!'()*"


class VerifyThrottle:
    """Failed verifications per client address and per token, counted in the database (every
    process shares the count, with Redis or without)."""

    def __init__(self, settings: Settings) -> None:
        self._counter = FailureCounter(
            settings, "bff-verify", settings.login_window_seconds, durable=True
        )
        self._per_address = settings.verify_max_failures_per_address
        self._per_token = settings.verify_max_failures_per_token

    def _keys(self, token_id: str, address: str) -> list[Limit]:
        return [
            Limit("addr:" + address, self._per_address),
            Limit("token:" + token_id, self._per_token),
        ]

    async def failed(self, token_id: str, address: str) -> None:
        """Count a failed attempt, checked and counted at once (so concurrent ones cannot all
        pass): 429, and nothing counted, while the address or the token is at its limit."""
        _, wait = await self._counter.reserve(self._keys(token_id, address))
        if wait is not None:
            raise ApiError(
                429,
                f"Too many attempts. Please wait {minutes_text(wait)} and scan the token again.",
                {"Retry-After": str(wait)},
            )


def _stranger(address: str) -> Actor:
    return Actor(None, "Unauthenticated visitor", "", address)


async def verify(
    token_id: str, signature: str, address: str, settings: Settings, throttle: VerifyThrottle
) -> EmergencyGrant | None:
    """A new grant when a static link is genuine and its token assigned; None (audited)
    otherwise. A SUN tag's token has no static link: its id and signature open nothing."""
    if not signature_matches(settings, token_id, signature):
        await throttle.failed(token_id, address)
        await _refused(token_id, address, "bad signature")
        return None
    token = await tokens.token_by_token_id(token_id)
    if token is None:
        await _refused(token_id, address, "no such token (deleted)")
        return None
    if token.is_sun:
        await _refused(token_id, address, "static link of a SUN tag", token.token_id)
        return None
    if token.status is not TokenStatus.ASSIGNED or token.folder is None:
        await _refused(token_id, address, f"token {token.status}", token.token_id)
        return None
    async with transaction() as conn:
        return await _open(conn, token, address, settings)


async def verify_sun(
    picc_hex: str, mac_hex: str, address: str, settings: Settings, throttle: VerifyThrottle
) -> EmergencyGrant | None:
    """A new grant for a genuine, fresh NTAG 424 DNA tap (AN12196 SUN message); None (audited,
    and announced to admins when it names a registered tag) otherwise.

    The tap's counter must be above the last accepted one: the check and the update are one
    statement inside the grant's transaction, so one tap opens at most one grant."""
    try:
        picc = sun.decrypt_picc_data(settings.sdm_meta_read_key_bytes(), bytes.fromhex(picc_hex))
    except sun.SunError:
        await _failed(throttle, "picc:" + picc_hex, address, "PICCData not from this deployment")
        return None
    uid = picc.uid.hex().upper()
    label = f"uid:{uid}"
    token = await tokens.token_by_sun_uid(uid)
    if token is None or token.sun_key is None:
        await _failed(throttle, label, address, f"no SUN tag with this uid; counter {picc.counter}")
        return None
    try:
        key = open_sealed(settings, picc.uid, token.sun_key)
    except KeyUnavailable:
        await _refused(token.token_id, address, "tag key unavailable", token.token_id)
        return None
    if not sun.mac_matches(key, picc.uid, picc.counter, bytes.fromhex(mac_hex)):
        await _failed(throttle, token.token_id, address, "bad MAC", token.token_id)
        return None
    if token.status is not TokenStatus.ASSIGNED or token.folder is None:
        await _refused(token.token_id, address, f"token {token.status}", token.token_id)
        return None
    async with transaction() as conn:
        if await tokens.accept_tap(conn, token.id, picc.counter, datetime.now(UTC)):
            return await _open(conn, token, address, settings)
    last = "" if token.sun_counter is None else f" (last accepted {token.sun_counter} or later)"
    await _failed(
        throttle, token.token_id, address, f"replayed: counter {picc.counter}{last}", token.token_id
    )
    return None


async def _open(
    conn: BaseDBAsyncClient, token: SmartToken, address: str, settings: Settings
) -> EmergencyGrant:
    assert token.folder is not None
    now = datetime.now(UTC)
    expires_at = now + timedelta(minutes=settings.emergency_minutes)
    grant = await repository.open_grant(
        conn, secrets.token_urlsafe(32), token, expires_at, address, now
    )
    token_id = token.token_id
    metrics.emergency("opened")
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


async def _failed(
    throttle: VerifyThrottle, key: str, address: str, reason: str, token_id: str | None = None
) -> None:
    """A failure that counts against the address and the tag (429 once over either limit)."""
    await throttle.failed(key, address)
    await _refused(token_id or key, address, reason, token_id)


async def _refused(label: str, address: str, reason: str, token_id: str | None = None) -> None:
    """Audit a refusal with its reason; admins are alerted live when it names a token."""
    metrics.emergency("refused")
    await record_alone(
        _stranger(address), "emergency_refused", details=f"token={label[:64]}; {reason}"
    )
    if token_id is not None:
        publish(EMERGENCY_REFUSED, {"tokenId": token_id, "reason": reason.split(":")[0]}, [ADMINS])


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
        # Where a document came from (a mail's sender) is for the folder's staff, not the
        # responder: the files without it.
        files=[blob.model_copy(update={"source": None}) for blob in listing.blobs],
        patient=PatientDetails.known(await folder_patient(access.folder_id)),
    )


async def photo_path(access: EmergencyAccess, actor: Actor) -> str | None:
    """The server path of the patient's photo as the emergency page requests it, or None (a
    held photo is not there for the responder: bff/files/service.py `may_see`)."""
    if not await has_profile_image(access.folder_id, actor):
        return None
    names = (
        quote(access.container, safe=URI_COMPONENT_SAFE),
        quote(access.folder, safe=URI_COMPONENT_SAFE),
    )
    return "/api/blobs/{}/{}/profile-image".format(*names)


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
