"""Shapes of the responder's emergency view."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, Field

from bff.files.schemas import Blob
from bff.patients.schemas import PatientDetails


class EmergencyView(BaseModel):
    """The patient a responder may see: name, date of birth, photo, files, and until when."""

    patientName: str
    patientDateOfBirth: date | None
    containerName: str
    folderName: str
    expiresAt: datetime
    hasProfileImage: bool
    files: list[Blob]
    patient: PatientDetails | None = Field(
        default=None,
        description="The folder's patient as staff see it (name, date of birth, record number), "
        "when known: the identity the page shows beside the token's",
    )


class EmergencyStatus(BaseModel):
    """The answer to a grant's holder while the grant is open (otherwise the neutral 404)."""

    open: bool
