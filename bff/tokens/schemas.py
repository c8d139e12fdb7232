"""Request and response shapes of SmartTokens (spec section 3: SmartToken, assigned-folder map)."""

from __future__ import annotations

from datetime import date, datetime
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


class RegisterToken(BaseModel):
    """POST /patients/admin/register: a new device by its secure chip id."""

    secureChipId: Annotated[
        str,
        StringConstraints(
            strip_whitespace=True, min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$"
        ),
    ]


class TokenRegistered(BaseModel):
    """A registered device and the verification URL to write to it (shown once)."""

    message: str
    smartTokenId: str
    secureChipId: str
    verificationUrl: str


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
