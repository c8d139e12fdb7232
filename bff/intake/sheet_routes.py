"""The intake's printable sheets as downloads (issue 51), beside routes.py: a folder's cover sheet
(from the folder page: its care team who may upload there and the intake permission's holders;
an unassigned folder 404 as on every folder route) and the separator sheet (the intake page's:
intake holders). PDFs, never cached; file names without patient details."""

from __future__ import annotations

from quart import Blueprint, Response

from bff.auth.policy import ANY_ROLE, Scope, allow, current_principal
from bff.files.delivery import content_disposition
from bff.intake import printing
from bff.request_context import current_actor
from bff.services import app_services

bp = Blueprint("intake_sheets", __name__, url_prefix="/api/intake")


def _pdf(data: bytes, file_name: str) -> Response:
    response = Response(data, content_type="application/pdf")
    response.headers["Content-Disposition"] = content_disposition("attachment", file_name)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/cover-sheet/<container>/<folder>")
@allow(ANY_ROLE, Scope.FOLDER)
async def cover_sheet(container: str, folder: str) -> Response:
    """A new cover sheet for the folder (PDF, two sides alike): its QR code names the folder and
    a new sheet id under the sheet key's MAC, beside the patient's name, date of birth and
    record number. For those who may upload to the folder and the intake permission's holders
    (others 403); every print audited `intake_sheet_printed` with its sheet id."""
    services = app_services()
    data = await printing.cover_sheet(
        container,
        folder,
        current_actor(),
        current_principal().may_intake,
        services.settings.intake_sheet_mac_key(),
        services.workers,
    )
    return _pdf(data, printing.COVER_FILE_NAME)


@bp.get("/separator-sheet")
@allow(ANY_ROLE, intake=True)
async def separator_sheet() -> Response:
    """The separator sheet (PDF, two sides alike): a batch is split where one lies. It names no
    patient."""
    data = await printing.separator_sheet(app_services().workers)
    return _pdf(data, printing.SEPARATOR_FILE_NAME)
