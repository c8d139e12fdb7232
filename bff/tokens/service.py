"""SmartToken lifecycle (spec section 4): register, assign, revoke, reactivate, delete.

unclaimed -> assigned (assign); assigned -> revoked (disconnect, with a reason);
revoked -> assigned (reactivate); assigned or revoked -> deleted (with a reason).
Every other transition is 409. Assigning a folder that another token holds moves the link: the
other token is revoked (its device no longer opens anything) and the move is reported as a
reassignment. Revoking or deleting a token ends its open emergency grants at once, and a
reactivated token starts with none: the responder scans again.
"""

from __future__ import annotations

import secrets
from datetime import UTC, date, datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, record, record_alone
from bff.containers.service import get_container, get_folder
from bff.db import transaction
from bff.emergency import repository as grants
from bff.errors import ApiError
from bff.live.events import (
    ADMINS,
    TOKEN_ASSIGNED,
    TOKEN_DELETED,
    TOKEN_REACTIVATED,
    TOKEN_REASSIGNED,
    TOKEN_REGISTERED,
    TOKEN_REVOKED,
    publish,
)
from bff.tokens import repository, sun
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.schemas import (
    DELETE_REASONS,
    REVOKE_REASONS,
    AssignToken,
    SmartTokenOut,
    SunPersonalisation,
    SunTag,
    TokenAssigned,
    TokenFolderLink,
    TokenKind,
    TokenRegistered,
)
from bff.tokens.signing import new_token_id, verification_url
from bff.tokens.tagkeys import KeyUnavailable, new_file_read_key, open_sealed, seal, url_template
from config.settings import Settings

TOKEN_NOT_FOUND = "SmartToken not found"  # noqa: S105 - a message, not a secret
UNKNOWN_PATIENT = "Unknown Patient"


def _announce(event: str, token_id: str, **extra: str) -> None:
    publish(event, {"tokenId": token_id, **extra}, [ADMINS])


def short_id(token_id: str) -> str:
    """A token id as the spec shows it: first 8 and last 8 characters when 16 or longer."""
    return f"{token_id[:8]}...{token_id[-8:]}" if len(token_id) >= 16 else token_id


def token_out(token: SmartToken) -> SmartTokenOut:
    """The API shape of a token (its folder and container loaded)."""
    folder = token.folder
    return SmartTokenOut(
        smartTokenId=token.token_id,
        secureChipId=token.secure_chip_id,
        createdAt=token.created_at,
        status=token.status.value,
        patientName=token.patient_name,
        patientDateOfBirth=token.patient_date_of_birth,
        containerName=folder.container.name if folder else None,
        folderName=folder.name if folder else None,
        assignedAt=token.assigned_at,
        revokeReason=token.revoke_reason,
        kind=TokenKind.SUN if token.is_sun else TokenKind.STATIC,
        sunUid=token.sun_uid,
        lastTapCounter=token.sun_counter,
        lastTapAt=token.last_tap_at,
    )


async def _locked(token_id: str, conn: BaseDBAsyncClient) -> SmartToken:
    token = await repository.locked_token(conn, token_id.upper())
    if token is None:
        raise ApiError(404, TOKEN_NOT_FOUND)
    return token


async def _loaded(token: SmartToken) -> SmartTokenOut:
    return token_out(await repository.token_with_folder(token.id))


async def _audit(
    conn: BaseDBAsyncClient, actor: Actor, operation: str, token: SmartToken, details: str = ""
) -> None:
    container = folder = ""
    if token.folder_id is not None:
        linked = await repository.token_with_folder(token.id, conn)
        if linked.folder is not None:
            container, folder = linked.folder.container.name, linked.folder.name
    text = f"token={token.token_id}" + (f"; {details}" if details else "")
    await record(conn, actor, operation, container=container, folder=folder, details=text)


async def register(
    secure_chip_id: str, settings: Settings, actor: Actor, sun: SunTag | None = None
) -> TokenRegistered:
    """Register an unclaimed device; 409 when its chip id (or SUN tag UID) is registered.

    A SUN tag's file-read key is sealed for the database; a generated one is returned here
    once, with the URL template and offsets to write to the tag."""
    taken = f"A token with secure chip id '{secure_chip_id}' is already registered."
    if await repository.chip_registered(secure_chip_id):
        raise ApiError(409, taken)
    uid = key = None
    if sun is not None:
        uid = sun.uid.upper()
        uid_taken = f"A tag with UID {uid} is already registered."
        if await repository.uid_registered(uid):
            raise ApiError(409, uid_taken)
        key = bytes.fromhex(sun.fileReadKey) if sun.fileReadKey else new_file_read_key()
    try:
        async with transaction() as conn:
            sealed = seal(settings, bytes.fromhex(uid), key) if uid and key else None
            token = await repository.create_token(
                conn, new_token_id(), secure_chip_id, sun_uid=uid, sun_key=sealed
            )
            details = f"chip={secure_chip_id}" + (f"; SUN tag uid={uid}" if uid else "")
            await _audit(conn, actor, "token_register", token, details)
            _announce(TOKEN_REGISTERED, token.token_id)
    except IntegrityError:
        if uid is not None and await repository.uid_registered(uid):
            raise ApiError(409, f"A tag with UID {uid} is already registered.") from None
        raise ApiError(409, taken) from None
    if uid is None or key is None:
        return TokenRegistered(
            message="Token registered successfully",
            smartTokenId=token.token_id,
            secureChipId=token.secure_chip_id,
            kind=TokenKind.STATIC,
            verificationUrl=verification_url(settings, token.token_id),
        )
    template = url_template(settings)
    return TokenRegistered(
        message="SUN tag registered successfully",
        smartTokenId=token.token_id,
        secureChipId=token.secure_chip_id,
        kind=TokenKind.SUN,
        verificationUrl=template.url,
        sun=SunPersonalisation(
            uid=uid,
            fileReadKey=None if sun and sun.fileReadKey else key.hex().upper(),
            urlTemplate=template.url,
            piccDataOffset=template.picc_data_offset,
            macOffset=template.mac_offset,
        ),
    )


async def list_tokens(actor: Actor, *, claimed: bool) -> list[SmartTokenOut]:
    """Unclaimed tokens, or claimed ones (assigned and revoked), newest first (audited: claimed
    tokens carry patient names and dates of birth)."""
    statuses = [TokenStatus.ASSIGNED, TokenStatus.REVOKED] if claimed else [TokenStatus.UNCLAIMED]
    tokens = [token_out(t) for t in await repository.tokens_with_status(statuses)]
    kind = "assigned and revoked" if claimed else "unclaimed"
    await record_alone(actor, "token_list", details=f"{kind} tokens: {len(tokens)}")
    return tokens


async def assigned_folders(container_name: str, actor: Actor) -> dict[str, TokenFolderLink]:
    """Folder name to the token linked to it, for one container (audited: patient names)."""
    container = await get_container(container_name)
    tokens = await repository.tokens_in_container(container.id)
    await record_alone(
        actor, "token_list", container=container.name, details="tokens of the container's folders"
    )
    return {
        t.folder.name: TokenFolderLink(
            tokenId=t.token_id, patientName=t.patient_name, status=t.status.value
        )
        for t in tokens
        if t.folder is not None
    }


async def assign(data: AssignToken, actor: Actor) -> TokenAssigned:
    """Link a token to a patient folder; a folder held by another token moves to this one."""
    if data.patientDateOfBirth is not None and data.patientDateOfBirth > date.today():
        raise ApiError(400, "The date of birth cannot be in the future.")
    folder = await get_folder(data.containerName, data.folderName)
    now = datetime.now(UTC)
    async with transaction() as conn:
        token = await _locked(data.tokenId, conn)
        if token.status is TokenStatus.REVOKED:
            raise ApiError(409, "Cannot assign a revoked token. Reactivate it first.")
        if token.status is TokenStatus.ASSIGNED and token.folder_id != folder.id:
            raise ApiError(
                409, "This token is linked to another patient. Revoke or delete it first."
            )
        holder = await repository.locked_folder_holder(conn, folder.id, token.id)
        if holder is not None:
            await _audit(conn, actor, "token_unlink", holder, f"moved to {token.token_id}")
            holder.folder = None
            holder.status = TokenStatus.REVOKED
            holder.revoke_reason = (
                f"Reassigned: the folder moved to token {short_id(token.token_id)}"
            )
            holder.revoked_at = now
            await repository.save_token(conn, holder)
            await grants.end_token_grants(conn, holder.id)
        token.folder = folder
        token.status = TokenStatus.ASSIGNED
        token.patient_name = data.patientName or UNKNOWN_PATIENT
        token.patient_date_of_birth = data.patientDateOfBirth
        token.assigned_at = now
        token.revoke_reason = None
        token.revoked_at = None
        await repository.save_token(conn, token)
        await _audit(
            conn,
            actor,
            "token_assign",
            token,
            f"reassigned from {holder.token_id}" if holder else "",
        )
        _announce(
            TOKEN_REASSIGNED if holder else TOKEN_ASSIGNED,
            token.token_id,
            container=folder.container.name,
            folder=folder.name,
            **({"previousTokenId": holder.token_id} if holder else {}),
        )
    return TokenAssigned(
        message="Token reassigned successfully" if holder else "Token assigned successfully",
        reassignment=holder is not None,
        previousTokenId=holder.token_id if holder else None,
        token=await _loaded(token),
    )


def _reason(reason: str, allowed: tuple[str, ...], missing: str, what: str) -> str:
    if not reason:
        raise ApiError(400, missing)
    if reason not in allowed:
        raise ApiError(400, f"Choose a reason for {what} from the list: {'; '.join(allowed)}.")
    return reason


async def revoke(token_id: str, reason: str, actor: Actor) -> SmartTokenOut:
    """Remote disconnect: the device's link stops working at once."""
    reason = _reason(reason, REVOKE_REASONS, "Please provide a reason for revocation", "revocation")
    async with transaction() as conn:
        token = await _locked(token_id, conn)
        if token.status is not TokenStatus.ASSIGNED:
            raise ApiError(
                409, f"Only an assigned token can be disconnected; this one is {token.status}."
            )
        token.status = TokenStatus.REVOKED
        token.revoke_reason = reason
        token.revoked_at = datetime.now(UTC)
        await repository.save_token(conn, token)
        await grants.end_token_grants(conn, token.id)
        await _audit(conn, actor, "token_revoke", token, f"reason={reason}")
        _announce(TOKEN_REVOKED, token.token_id)
    return await _loaded(token)


async def reactivate(token_id: str, actor: Actor) -> SmartTokenOut:
    """Revoked -> assigned again, for the same patient folder."""
    async with transaction() as conn:
        token = await _locked(token_id, conn)
        if token.status is not TokenStatus.REVOKED:
            raise ApiError(
                409, f"Only a revoked token can be reactivated; this one is {token.status}."
            )
        if token.folder_id is None:
            raise ApiError(
                409,
                "This token's patient folder has moved to another token, so it cannot be "
                "reactivated. Delete it instead.",
            )
        token.status = TokenStatus.ASSIGNED
        token.revoke_reason = None
        token.revoked_at = None
        await repository.save_token(conn, token)
        # A scan that read the token just before the revocation committed may have written
        # its grant just after it (refused while revoked): it must not come back to life now.
        await grants.end_token_grants(conn, token.id)
        await _audit(conn, actor, "token_reactivate", token)
        _announce(TOKEN_REACTIVATED, token.token_id)
    return await _loaded(token)


async def delete(token_id: str, reason: str, actor: Actor) -> None:
    """Delete an assigned or revoked token for good (the audit log keeps its history)."""
    reason = _reason(reason, DELETE_REASONS, "Please provide a reason for deletion", "deletion")
    async with transaction() as conn:
        token = await _locked(token_id, conn)
        if token.status is TokenStatus.UNCLAIMED:
            raise ApiError(
                409, "An unclaimed token cannot be deleted; only assigned or revoked ones can."
            )
        await _audit(conn, actor, "token_delete", token, f"reason={reason}")
        await grants.end_token_grants(conn, token.id)
        await repository.delete_token(conn, token.id)
        _announce(TOKEN_DELETED, token.token_id)


async def simulated_tap(token_id: str, settings: Settings, counter: int | None = None) -> str:
    """A fresh tap URL of a SUN tag registered here, as the tag itself would write it (for
    development and demos). Refused for static tokens and keys this deployment cannot open."""
    token = await repository.token_by_token_id(token_id.strip().upper())
    if token is None:
        raise ApiError(404, TOKEN_NOT_FOUND)
    if token.sun_uid is None or token.sun_key is None:
        raise ApiError(409, "This token has a static link, not a SUN tag: there is no tap.")
    uid = bytes.fromhex(token.sun_uid)
    try:
        key = open_sealed(settings, uid, token.sun_key)
    except KeyUnavailable:
        raise ApiError(
            409, "This tag's key was not sealed by this deployment (another BFF_TOKEN_KEY)."
        ) from None
    if counter is None:
        counter = (token.sun_counter or 0) + 1
    if not 0 <= counter <= sun.COUNTER_MAX:
        raise ApiError(400, f"A tap counter is between 0 and {sun.COUNTER_MAX}.")
    picc = sun.encrypt_picc_data(
        settings.sdm_meta_read_key_bytes(), uid, counter, secrets.token_bytes(5)
    )
    mac = sun.sdm_mac(key, uid, counter)
    return url_template(settings).url_for(picc, mac)
