"""Request and response shapes of SmartTokens (spec section 3: SmartToken, assigned-folder map)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, StringConstraints, field_validator

REVOKE_REASONS = (
    "Token lost by patient",
    "Token damaged or malfunctioning",
    "Patient reported token stolen",
    "Security breach suspected",
    "Patient no longer needs access",
    "Administrative revocation",
    "Other",
)
DELETE_REASONS = (
    "Physical token permanently lost",
    "Token stolen and cannot be recovered",
    "Token physically damaged beyond repair",
    "Need to assign patient folder to new token",
    "Patient deceased - cleanup required",
    "Administrative cleanup",
    "Other permanent removal",
)
TokenId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]


class TokenKind(StrEnum):
    """How a token's taps are checked."""

    SUN = "sun"  # NTAG 424 DNA: a fresh encrypted, MACed URL on every tap (replay-proof)
    STATIC = "static"  # a fixed signed link (not replay-proof); tokens registered before SUN


HexKey = Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^[0-9A-Fa-f]{32}$")]


class SunTag(BaseModel):
    """An NTAG 424 DNA tag: its 7-byte UID, and its SDM file-read key when personalised
    elsewhere (else the server generates one)."""

    uid: Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^[0-9A-Fa-f]{14}$")]
    fileReadKey: HexKey | None = None


class RegisterToken(BaseModel):
    """POST /patients/admin/register: a new device by its secure chip id; with `sun`, an
    NTAG 424 DNA tag (replay-proof), else a static signed link."""

    secureChipId: Annotated[
        str,
        StringConstraints(
            strip_whitespace=True, min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$"
        ),
    ]
    sun: SunTag | None = None


class SunPersonalisation(BaseModel):
    """What to write to a SUN tag: the NDEF URL with placeholders and the SDM offsets in the
    NDEF file (the URL written whole, one URI record with identifier code 0x00). The
    generated file-read key is shown here once; a key given at registration is not echoed."""

    uid: str
    fileReadKey: str | None
    urlTemplate: str
    piccDataOffset: int
    macOffset: int


class TokenRegistered(BaseModel):
    """A registered device and what to write to it (shown once): the verification URL of a
    static token, or the URL template of a SUN tag with its personalisation data."""

    message: str
    smartTokenId: str
    secureChipId: str
    kind: TokenKind
    verificationUrl: str
    sun: SunPersonalisation | None = None


class SmartTokenOut(BaseModel):
    """A SmartToken as admins see it."""

    smartTokenId: str
    secureChipId: str
    createdAt: datetime
    status: str
    patientName: str | None
    patientDateOfBirth: date | None
    containerName: str | None
    folderName: str | None
    assignedAt: datetime | None
    revokeReason: str | None
    kind: TokenKind
    sunUid: str | None
    lastTapCounter: int | None
    lastTapAt: datetime | None


class TokenList(BaseModel):
    """Tokens, newest first."""

    tokens: list[SmartTokenOut]


class TokenFolderLink(BaseModel):
    """The token linked to a folder."""

    tokenId: str
    patientName: str | None
    status: str


class AssignedFolders(BaseModel):
    """Folder name to its linked token, for one container."""

    assignedFolders: dict[str, TokenFolderLink]


class AssignToken(BaseModel):
    """POST /patients/admin/assign."""

    tokenId: TokenId
    containerName: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
    folderName: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
    patientName: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    patientDateOfBirth: date | None = None

    @field_validator("patientDateOfBirth", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value in ("", None) else value


class TokenAssigned(BaseModel):
    """The result of an assignment; reassignment when the folder was linked to another token."""

    message: str
    reassignment: bool
    previousTokenId: str | None
    token: SmartTokenOut


class RevokeToken(BaseModel):
    """POST /patients/admin/revoke."""

    tokenId: TokenId
    reason: Reason = ""


class ReactivateToken(BaseModel):
    """POST /patients/admin/reactivate."""

    tokenId: TokenId


class DeleteToken(BaseModel):
    """DELETE /patients/admin/delete/{tokenId} body."""

    reason: Reason = ""
