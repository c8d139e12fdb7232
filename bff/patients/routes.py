"""A folder's patient demographics: /api/patients/{container}/{folder}."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.auth.policy import ANY_ROLE, CAN_EDIT_PATIENT, Scope, allow
from bff.patients import rules, service
from bff.patients.schemas import PatientDetails, PatientRead, PatientSaved, PatientUpdate
from bff.request_context import current_actor

bp = Blueprint("patients", __name__, url_prefix="/api/patients")


@bp.get("/<container>/<folder>")
@allow(ANY_ROLE, Scope.FOLDER)
@validate_response(PatientRead)
async def patient(container: str, folder: str) -> PatientRead:
    """The folder's patient: name, date of birth and record number (each may be null), and who
    last changed them and when (null: no change on record)."""
    patient, change = await service.patient_details(container, folder, current_actor())
    return PatientRead(
        **PatientDetails.of(patient).model_dump(),
        changedBy=None if change is None else change.by,
        changedAt=None if change is None else change.at,
    )


@bp.put("/<container>/<folder>")
@allow(CAN_EDIT_PATIENT, Scope.FOLDER)
@validate_request(PatientUpdate)
@validate_response(PatientSaved)
async def update_patient(container: str, folder: str, data: PatientUpdate) -> PatientSaved:
    """Set the folder's patient (admin and doctors): all three fields; blank clears one."""
    given = rules.demographics(data.name, data.dateOfBirth, data.recordNumber)
    patient, changed = await service.update_patient(container, folder, given, current_actor())
    message = service.SAVED if changed else service.UNCHANGED
    return PatientSaved(message=message, patient=PatientDetails.of(patient))
