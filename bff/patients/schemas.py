"""Request and response shapes of a folder's patient demographics."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

from pydantic import BaseModel, Field

from bff.patients.rules import Demographics

# Bounded generously: the rules (bff/patients/rules.py) give the readable 400s.
_Text = Annotated[str, Field(max_length=1000)]


class PatientDetails(BaseModel):
    """A folder's patient: name, date of birth (YYYY-MM-DD) and record number, each optional."""

    name: str | None = None
    dateOfBirth: date | None = None
    recordNumber: str | None = None

    @classmethod
    def of(cls, patient: Demographics) -> PatientDetails:
        """The shape of a patient's demographics."""
        return cls(
            name=patient.name, dateOfBirth=patient.birth_date, recordNumber=patient.record_number
        )

    @classmethod
    def known(cls, patient: Demographics) -> PatientDetails | None:
        """The shape, or None when nothing is known of the patient."""
        return None if patient.is_empty() else cls.of(patient)


class PatientRead(PatientDetails):
    """A folder's patient as its page shows it, with who last changed them and when."""

    changedBy: str | None = Field(
        None,
        description="Who last changed the patient's details (their display name), as the "
        "live patient:changed event says; null when no change is on record",
    )
    changedAt: datetime | None = Field(
        None, description="When the details were last changed (null: no change on record)"
    )


class PatientUpdate(BaseModel):
    """PUT /api/patients/{container}/{folder}: the three fields as they should be (blank or
    null clears one)."""

    name: _Text | None = None
    dateOfBirth: Annotated[str, Field(max_length=40)] | None = None
    recordNumber: _Text | None = None


class PatientSaved(BaseModel):
    """The patient as saved."""

    message: str
    patient: PatientDetails
