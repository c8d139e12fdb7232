"""The emergency grant behind a responder's cookie, checked on every request it is used for.

A grant works only while it is unexpired and its token is still assigned to the same folder:
revoking, reassigning or deleting the token ends it at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from bff.audit.service import Actor
from bff.emergency import repository
from bff.tokens.models import TokenStatus
from config.settings import Settings

# Over https the cookie is `__Host-` (browsers take it only Secure, for Path=/ and no Domain,
# so neither a plain-http answer nor a sibling subdomain can set or overwrite it); over http (a
# developer's machine) that prefix cannot be set, and the plain name is used.
SECURE_COOKIE = "__Host-bff_emergency"
COOKIE = "bff_emergency"
NEUTRAL = "This emergency access link is not valid or has expired."


def cookie_name(settings: Settings) -> str:
    """The grant cookie's name for this deployment's scheme. Over https only the `__Host-`
    one is read: a grant under the plain name (set before the switch to https, at most
    BFF_EMERGENCY_MINUTES ago) could have been planted over http, and the responder rescans."""
    return SECURE_COOKIE if settings.https else COOKIE


def responder(token_id: str, client_address: str) -> Actor:
    """A responder as the audit log records them: by the token they scanned."""
    return Actor(None, f"Emergency responder (token {token_id[:8]})", "emergency", client_address)


@dataclass(frozen=True)
class EmergencyAccess:
    """What one live grant opens: one folder, read-only, until expires_at."""

    grant_id: str
    token_id: str
    container: str
    folder: str
    folder_id: int
    expires_at: datetime
    patient_name: str
    patient_date_of_birth: date | None

    def actor(self, client_address: str) -> Actor:
        """The responder as the audit log records them."""
        return responder(self.token_id, client_address)


async def active_grant(grant_id: str | None) -> EmergencyAccess | None:
    """The access a cookie value grants now, or None."""
    if not grant_id or len(grant_id) > 64:
        return None
    grant = await repository.grant_with_token(grant_id)
    if grant is None or grant.expires_at <= datetime.now(UTC):
        return None
    token = grant.token
    if token.status is not TokenStatus.ASSIGNED or token.folder_id != grant.folder_id:
        return None
    return EmergencyAccess(
        grant_id=grant.id,
        token_id=token.token_id,
        container=grant.folder.container.name,
        folder=grant.folder.name,
        folder_id=grant.folder_id,
        expires_at=grant.expires_at,
        patient_name=token.patient_name or "Unknown Patient",
        patient_date_of_birth=token.patient_date_of_birth,
    )
