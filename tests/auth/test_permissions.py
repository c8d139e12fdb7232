"""The permission matrix: every route, every role, assigned and unassigned resources.

EXPECTED is the one table of who may call what. The test walks the app's URL map, so a new
route without an entry here fails. Each route is called without a token and by each role, on
the caller's own folder, on an unassigned folder of the caller's container (folder-scoped
routes) and on another container's folder; refusals must be exact and allowed calls of public
routes, and of routes whose answer is the point, must return the documented body.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from typing import Any

import pytest
from quart import Quart
from werkzeug.datastructures import FileStorage

from bff.assignments.schemas import MyAssignmentsResponse
from bff.auth.policy import LIBRARY_ENDPOINTS, NO_LINK
from bff.auth.schemas import LoginResponse
from bff.containers.schemas import ContainersResponse, FoldersResponse
from bff.files.schemas import BlobList, MyFoldersResponse, UploadResponse, ViewLink
from bff.files.service import VERSION_NOT_FOUND
from bff.files.trash import TRASH_NOT_FOUND
from bff.files.viewer import FILE_CHANGED
from bff.intake.service import ITEM_NOT_FOUND as INTAKE_ITEM_NOT_FOUND
from bff.mfa import service as mfa
from bff.mfa.signin import MFA_EXPIRED
from bff.oidc.service import NOT_CONFIGURED, NOT_EXPECTED, NOT_LINKED
from bff.scan.models import Quarantined
from bff.services import app_services
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.signing import new_token_id
from bff.users.models import Role
from config.settings import Settings
from storage.base import Storage
from tests.factories import (
    PASSWORD,
    StaffMember,
    assign,
    make_container,
    make_file,
    make_folder,
    make_staff,
    make_user,
)
from tests.helpers import web_app_index

PUBLIC = "public"  # anyone, even without a token
ANY = "any"  # any signed-in role
ADMIN = "admin"  # admins only
UPLOAD = "upload"  # admins, doctors and nurses (spec section 6)
EDIT_PATIENT = "edit-patient"  # admins and doctors: a folder's patient details
# Admins, and staff an admin granted the intake permission (none here: tests/intake/).
INTAKE = "intake"
# A folder's cover sheet: whoever sees the folder (404 otherwise), then those who may upload to
# it or hold the intake permission (assistants without it 403).
SHEET = "cover-sheet"
# Monitoring scrapers (GET /metrics): BFF_METRICS_ALLOW's addresses or BFF_METRICS_TOKEN only;
# a session opens nothing, and the test client has no address (tests/test_observability.py).
SCRAPER = "scraper"

# Scope: None, "container" or "folder": non-admins must have it assigned, else 404.
EXPECTED: dict[tuple[str, str], tuple[str, str | None]] = {
    ("GET", "/api/health"): (PUBLIC, None),
    ("GET", "/api/health/live"): (PUBLIC, None),
    ("GET", "/metrics"): (SCRAPER, None),
    ("GET", "/"): (PUBLIC, None),
    ("GET", "/<app_path:path>"): (PUBLIC, None),
    ("GET", "/docs"): (PUBLIC, None),
    ("GET", "/docs/init.js"): (PUBLIC, None),
    ("GET", "/docs/assets/<path:filename>"): (PUBLIC, None),
    ("POST", "/api/auth/login"): (PUBLIC, None),
    ("GET", "/api/auth/me"): (ANY, None),
    ("GET", "/api/auth/validate-token"): (ANY, None),
    ("POST", "/api/auth/logout"): (ANY, None),
    ("POST", "/api/auth/logout-all"): (ANY, None),
    ("POST", "/api/auth/register"): (ADMIN, None),
    ("POST", "/api/auth/login/mfa"): (PUBLIC, None),
    ("POST", "/api/auth/login/mfa/webauthn/options"): (PUBLIC, None),
    ("GET", "/api/auth/mfa"): (ANY, None),
    ("POST", "/api/auth/mfa/totp"): (ANY, None),
    ("POST", "/api/auth/mfa/totp/confirm"): (ANY, None),
    ("DELETE", "/api/auth/mfa/totp"): (ANY, None),
    ("POST", "/api/auth/mfa/webauthn/register/options"): (ANY, None),
    ("POST", "/api/auth/mfa/webauthn/register"): (ANY, None),
    ("DELETE", "/api/auth/mfa/webauthn/<int:passkey_id>"): (ANY, None),
    ("POST", "/api/auth/mfa/recovery-codes"): (ANY, None),
    ("POST", "/api/auth/confirm-identity"): (ANY, None),
    ("DELETE", "/api/users/<int:user_id>/mfa"): (ADMIN, None),
    ("DELETE", "/api/users/<int:user_id>/sso-link"): (ADMIN, None),
    ("GET", "/api/users/<int:user_id>/sso"): (ADMIN, None),
    ("PUT", "/api/users/<int:user_id>/sso-link"): (ADMIN, None),
    ("PUT", "/api/users/<int:user_id>/sso-expected"): (ADMIN, None),
    ("DELETE", "/api/users/<int:user_id>/sso-expected"): (ADMIN, None),
    ("GET", "/api/auth/oidc/config"): (PUBLIC, None),
    ("GET", "/api/auth/oidc/start"): (PUBLIC, None),
    ("GET", "/api/auth/oidc/callback"): (PUBLIC, None),
    ("POST", "/api/auth/oidc/complete"): (PUBLIC, None),
    ("POST", "/api/auth/oidc/link"): (PUBLIC, None),
    ("POST", "/api/auth/oidc/link-code"): (PUBLIC, None),
    ("POST", "/api/auth/oidc/backchannel-logout"): (PUBLIC, None),
    ("GET", "/api/users"): (ADMIN, None),
    ("GET", "/api/users/with-assignments"): (ADMIN, None),
    ("GET", "/api/users/dashboard"): (ADMIN, None),
    ("GET", "/api/users/<int:user_id>"): (ADMIN, None),
    ("PUT", "/api/users/<int:user_id>"): (ADMIN, None),
    ("DELETE", "/api/users/<int:user_id>"): (ADMIN, None),
    ("GET", "/api/assignments/containers"): (ANY, None),
    ("GET", "/api/assignments/containers/<container>/folders"): (ANY, "container"),
    ("POST", "/api/assignments/containers/<string:container>/users/<int:user_id>"): (ADMIN, None),
    ("POST", "/api/assignments/containers/<container>/folders"): (ADMIN, None),
    ("GET", "/api/assignments/users/<int:user_id>"): (ADMIN, None),
    ("GET", "/api/assignments/my-assignments"): (ANY, None),
    ("DELETE", "/api/assignments/<int:assignment_id>"): (ADMIN, None),
    ("POST", "/api/admin/containers"): (ADMIN, None),
    ("POST", "/api/admin/containers/<container>/folders"): (ADMIN, None),
    # Malware scanning (issue 49): the quarantine and the scanner's state are the admins'.
    ("GET", "/api/admin/scanning"): (ADMIN, None),
    ("GET", "/api/admin/quarantine"): (ADMIN, None),
    ("DELETE", "/api/admin/quarantine/<int:quarantine_id>"): (ADMIN, None),
    # The intake (issue 51): an item's routes name no patient, only its id.
    ("GET", "/api/intake/items"): (INTAKE, None),
    ("POST", "/api/intake/items"): (INTAKE, None),
    ("GET", "/api/intake/items/<int:item_id>"): (INTAKE, None),
    ("GET", "/api/intake/items/<int:item_id>/content"): (INTAKE, None),
    ("GET", "/api/intake/items/<int:item_id>/thumbnail"): (INTAKE, None),
    ("POST", "/api/intake/items/<int:item_id>/file"): (INTAKE, None),
    ("POST", "/api/intake/items/<int:item_id>/delete"): (INTAKE, None),
    ("POST", "/api/intake/items/<int:item_id>/split"): (INTAKE, None),
    ("POST", "/api/intake/items/<int:item_id>/rotate"): (INTAKE, None),
    ("GET", "/api/intake/separator-sheet"): (INTAKE, None),
    ("GET", "/api/intake/cover-sheet/<container>/<folder>"): (SHEET, "folder"),
    ("GET", "/api/blobs/audit"): (ADMIN, None),
    ("GET", "/api/blobs/audit/report"): (ADMIN, None),
    ("GET", "/api/blobs/audit/status"): (ADMIN, None),
    ("GET", "/api/assignments/my-assignments/stats"): (ANY, None),
    ("GET", "/api/assignments/my-assignments/folders"): (ANY, None),
    ("GET", "/api/blobs/<container>/<folder>"): (ANY, "folder"),
    ("POST", "/api/blobs/<container>/<folder>"): (UPLOAD, "folder"),
    ("GET", "/api/patients/<container>/<folder>"): (ANY, "folder"),
    ("PUT", "/api/patients/<container>/<folder>"): (EDIT_PATIENT, "folder"),
    ("GET", "/api/search"): (ANY, None),
    ("GET", "/api/blobs/<container>/<folder>/profile-image"): (ANY, "folder"),
    ("POST", "/api/blobs/<container>/<folder>/visit"): (ANY, "folder"),
    ("DELETE", "/api/blobs/<container>/<folder>/<blob>"): (ADMIN, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/url"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/view"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/versions"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/thumbnail/<version_id>"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/pages/<int:page>"): (
        ANY,
        "folder",
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/content"): (
        ANY,
        "folder",
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/image"): (
        ANY,
        "folder",
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/html"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/text"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/words"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/find"): (ANY, "folder"),
    ("POST", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/copied"): (
        ANY,
        "folder",
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/url"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/view"): (ANY, "folder"),
    ("POST", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/restore"): (
        UPLOAD,
        "folder",
    ),
    ("GET", "/api/blobs/<container>/<folder>/trash"): (ADMIN, "folder"),
    ("POST", "/api/blobs/<container>/<folder>/trash/<blob>/restore"): (ADMIN, "folder"),
    ("DELETE", "/api/blobs/<container>/<folder>/trash/<blob>"): (ADMIN, "folder"),
    ("POST", "/patients/admin/register"): (ADMIN, None),
    ("GET", "/patients/admin/unclaimed"): (ADMIN, None),
    ("GET", "/patients/admin/assigned"): (ADMIN, None),
    ("GET", "/patients/admin/assigned-folders/<container>"): (ADMIN, None),
    ("POST", "/patients/admin/assign"): (ADMIN, None),
    ("POST", "/patients/admin/revoke"): (ADMIN, None),
    ("POST", "/patients/admin/reactivate"): (ADMIN, None),
    ("DELETE", "/patients/admin/delete/<token_id>"): (ADMIN, None),
    ("GET", "/patients/verify/<token_id>"): (PUBLIC, None),
    ("GET", "/emergency"): (PUBLIC, None),
    ("GET", "/api/emergency/session"): (PUBLIC, None),
    ("GET", "/api/emergency/session/status"): (PUBLIC, None),
    ("DELETE", "/api/emergency/session"): (PUBLIC, None),
}

# Open to all, but without an emergency grant (a cookie) they answer the neutral 404.
EMERGENCY_ONLY = {"/api/emergency/session", "/api/emergency/session/status"}
SCOPE_MESSAGES = {"container": "Container not found", "folder": "Folder not found"}
NEUTRAL = {"message": "This emergency access link is not valid or has expired."}
# Variants of what the URL (or body) names: the caller's folder; an unassigned folder inside
# the caller's container (folder-scoped routes only); a folder of another container.
ASSIGNED, NEIGHBOUR, UNASSIGNED = "assigned", "neighbour", "unassigned"


@dataclass
class World:
    """What a caller has and has not: URL values of each variant, and other users."""

    params: dict[str, dict[str, Any]]
    subject_id: int
    subject_username: str
    newcomer_id: int
    # Folder names of each container, and the folder assigned to the caller.
    folders_of: dict[str, list[str]]
    my_container: str
    my_folder: str


def _report(folder: str) -> tuple[str, bytes]:
    """The name and bytes of the one report in a folder: both differ from folder to folder."""
    return f"report-of-{folder}.txt", f"notes of {folder}\n".encode()


def _photo(folder: str) -> bytes:
    return b"\xff\xd8 jpeg of " + folder.encode()


async def _quarantined(container: str, folder: str) -> Quarantined:
    """A file the scanner refused (its bytes need not be there: deleting forgets them too)."""
    return await Quarantined.create(
        container=container,
        folder=folder,
        name="invoice.pdf",
        signature="Eicar-Test-Signature",
        size=68,
        uploaded_by_name="Someone",
        found_at=datetime.now(UTC),
        reason="upload",
        object_key=f"{container}/{folder}/.bff-quarantine/0",
    )


async def _world(actor_user: Any, storage: Storage) -> World:
    mine = await make_container()
    my_folder = await make_folder(mine, "patient-1")
    neighbour = await make_folder(mine, "patient-3")  # in the caller's container, not theirs
    theirs = await make_container()
    their_folder = await make_folder(theirs, "patient-2")
    for folder in (my_folder, neighbour, their_folder):
        await make_file(storage, folder, *_report(folder.name))
        await make_file(storage, folder, "patient-profile.jpg", _photo(folder.name), "image/jpeg")
    await assign(actor_user, mine, my_folder)
    subject = await make_user(Role.NURSE)
    subject_assignment = await assign(subject, theirs, their_folder)
    await assign(subject, mine)
    unclaimed = await SmartToken.create(token_id=new_token_id(), secure_chip_id=f"u-{mine.name}")
    active = await SmartToken.create(
        token_id=new_token_id(),
        secure_chip_id=f"a-{mine.name}",
        status=TokenStatus.ASSIGNED,
        folder=my_folder,
        patient_name="Pat Active",
    )
    revoked = await SmartToken.create(
        token_id=new_token_id(),
        secure_chip_id=f"r-{mine.name}",
        status=TokenStatus.REVOKED,
        folder=their_folder,
        patient_name="Pat Revoked",
    )
    common = {
        "user_id": subject.id,
        "assignment_id": subject_assignment.id,
        "quarantine_id": (await _quarantined(mine.name, my_folder.name)).id,
        "token_id": active.token_id,
        "tokens": {"unclaimed": unclaimed.token_id, "revoked": revoked.token_id},
    }

    def names(container: str, folder: str) -> dict[str, Any]:
        return {"container": container, "folder": folder, "blob": _report(folder)[0], **common}

    return World(
        params={
            ASSIGNED: names(mine.name, my_folder.name),
            NEIGHBOUR: names(mine.name, neighbour.name),
            UNASSIGNED: names(theirs.name, their_folder.name),
        },
        subject_id=subject.id,
        subject_username=subject.username,
        newcomer_id=(await make_user(Role.NURSE)).id,
        folders_of={mine.name: ["patient-1", "patient-3"], theirs.name: ["patient-2"]},
        my_container=mine.name,
        my_folder=my_folder.name,
    )


def _request(method: str, rule: str, world: World, variant: str, username: str) -> dict[str, Any]:
    """Keyword arguments of a valid request to a route (body and query string)."""
    if (method, rule) in (
        ("POST", "/api/blobs/<container>/<folder>"),
        ("POST", "/api/intake/items"),
    ):
        upload = FileStorage(BytesIO(b"notes"), filename=f"notes-{secrets.token_hex(3)}.txt")
        return {"files": {"file": upload}}
    body, query = _body(method, rule, world, variant, username)
    return {"json": body, "query_string": query}


def _body(
    method: str, rule: str, world: World, variant: str, username: str
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """A valid JSON body and query string for a route."""
    fresh = secrets.token_hex(3)
    bodies: dict[tuple[str, str], Callable[[], Any]] = {
        ("POST", "/api/auth/login"): lambda: {"username": username, "password": PASSWORD},
        ("POST", "/api/auth/oidc/complete"): lambda: {"code": "not-a-code"},
        ("POST", "/api/auth/oidc/link"): lambda: {
            "code": "not-a-code",
            "username": username,
            "password": PASSWORD,
        },
        ("POST", "/api/auth/oidc/link-code"): lambda: {
            "code": "not-a-code",
            "linkCode": "2222-2222-2222-2222",
        },
        ("PUT", "/api/users/<int:user_id>/sso-link"): lambda: {"subject": "a-subject"},
        ("POST", "/api/auth/register"): lambda: {
            "name": "New Nurse",
            "username": f"new-{fresh}",
            "password": PASSWORD,
            "role": "nurse",
        },
        ("PUT", "/api/users/<int:user_id>"): lambda: {
            "name": "Renamed",
            "username": world.subject_username,
            "role": "nurse",
        },
        ("POST", "/api/assignments/containers/<container>/folders"): lambda: {
            "userId": world.subject_id,
            "folderNames": [world.params[variant]["folder"]],
        },
        ("POST", "/api/auth/login/mfa"): lambda: {"mfaToken": "expired", "code": "123456"},
        ("POST", "/api/auth/login/mfa/webauthn/options"): lambda: {"mfaToken": "expired"},
        ("POST", "/api/auth/mfa/totp/confirm"): lambda: {"code": "123456"},
        ("POST", "/api/auth/mfa/webauthn/register"): lambda: {"credential": {}, "label": "Key"},
        ("POST", "/api/auth/confirm-identity"): lambda: {"password": PASSWORD},
        ("POST", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/copied"): lambda: {
            "page": 1,
            "characters": 3,
        },
        ("POST", "/api/admin/containers"): lambda: {"name": f"new-ward-{fresh}"},
        ("POST", "/api/intake/items/<int:item_id>/file"): lambda: {
            "container": world.params[variant]["container"],
            "folder": world.params[variant]["folder"],
        },
        ("POST", "/api/intake/items/<int:item_id>/delete"): lambda: {"reason": "A test"},
        ("POST", "/api/intake/items/<int:item_id>/split"): lambda: {"ranges": [[1, 1]]},
        ("POST", "/api/intake/items/<int:item_id>/rotate"): lambda: {"degrees": 90},
        ("POST", "/patients/admin/register"): lambda: {"secureChipId": f"chip-{fresh}"},
        ("POST", "/patients/admin/assign"): lambda: {
            "tokenId": world.params[variant]["tokens"]["unclaimed"],
            "containerName": world.params[variant]["container"],
            "folderName": world.params[variant]["folder"],
            "patientName": "Pat New",
        },
        ("POST", "/patients/admin/revoke"): lambda: {
            "tokenId": world.params[variant]["token_id"],
            "reason": "Other",
        },
        ("POST", "/patients/admin/reactivate"): lambda: {
            "tokenId": world.params[variant]["tokens"]["revoked"]
        },
        ("DELETE", "/patients/admin/delete/<token_id>"): lambda: {
            "reason": "Administrative cleanup"
        },
        ("POST", "/api/admin/containers/<container>/folders"): lambda: {"name": f"p-{fresh}"},
        ("DELETE", "/api/blobs/<container>/<folder>/trash/<blob>"): lambda: {
            "confirmation": "DELETE"
        },
        ("PUT", "/api/patients/<container>/<folder>"): lambda: {
            "name": "Pat Example",
            "dateOfBirth": "1950-03-14",
            "recordNumber": f"MRN-{fresh}",
        },
    }
    query = {"type": "container"} if rule.endswith("<int:assignment_id>") else {}
    if rule == "/api/blobs/audit/report":
        query = {"containerName": world.my_container, "folderName": world.my_folder}
    if rule == "/api/search":
        query = {"q": "notes"}
    make = bodies.get((method, rule))
    return (make() if make else None), query


def _url(rule: str, params: dict[str, Any]) -> str:
    url = rule
    params = {
        "filename": "swagger-ui.css",
        "path": "dashboard",
        "passkey_id": 1,
        "page": 1,
        "version_id": "20260101T000000000000Z-0000",
        "item_id": 999_999,
        **params,
    }
    for key, value in params.items():
        url = (
            url.replace(f"<int:{key}>", str(value))
            .replace(f"<path:{key}>", str(value))
            .replace(f"<app_path:{key}>", str(value))
            .replace(f"<string:{key}>", str(value))
            .replace(f"<{key}>", str(value))
        )
    assert "<" not in url, f"no test value for a parameter of {rule}"
    return url


@dataclass
class Call:
    """One request of the matrix and what came back."""

    route: tuple[str, str]
    world: World
    variant: str
    actor: StaffMember
    status: int
    content_type: str
    data: bytes
    headers: Any

    @property
    def params(self) -> dict[str, Any]:
        return self.world.params[self.variant]

    def json(self) -> Any:
        return json.loads(self.data)


def _web_page(call: Call) -> None:
    assert call.content_type.startswith("text/html")
    assert call.data == web_app_index()
    assert "Set-Cookie" not in call.headers


def _login(call: Call) -> None:
    body = LoginResponse.model_validate(call.json())
    assert body.user.username == call.actor.user.username


# What a public route answers, with or without a token (the documented body, not only the
# status: a 500 or an error page must not pass).
SSO_OFF = NOT_CONFIGURED

PUBLIC_SHAPES: dict[tuple[str, str], Callable[[Call], None]] = {
    ("GET", "/api/health"): lambda call: _equal(
        call.json(), {"status": "ok", "database": "ok", "storage": "ok"}
    ),
    ("GET", "/api/health/live"): lambda call: _equal(call.json(), {"status": "ok"}),
    ("GET", "/"): _web_page,
    ("GET", "/<app_path:path>"): _web_page,
    ("GET", "/patients/verify/<token_id>"): _web_page,  # no signature: the web app explains
    ("GET", "/emergency"): _web_page,
    ("GET", "/docs"): lambda call: _contains(call, "text/html", b"/docs/assets/swagger-ui"),
    ("GET", "/docs/init.js"): lambda call: _contains(call, "text/javascript", b"SwaggerUI"),
    ("GET", "/docs/assets/<path:filename>"): lambda call: _contains(call, "text/css", b".swagger"),
    ("POST", "/api/auth/login"): _login,
    ("POST", "/api/auth/login/mfa"): lambda call: _equal(call.json(), {"message": MFA_EXPIRED}),
    ("POST", "/api/auth/login/mfa/webauthn/options"): lambda call: _equal(
        call.json(), {"message": MFA_EXPIRED}
    ),
    # Single sign-on is not configured in these tests (tests/auth/test_oidc.py has it).
    ("GET", "/api/auth/oidc/config"): lambda call: _equal(
        call.json(), {"enabled": False, "displayName": "single sign-on", "localPasswords": "all"}
    ),
    ("GET", "/api/auth/oidc/start"): lambda call: _equal(call.json(), {"message": SSO_OFF}),
    ("GET", "/api/auth/oidc/callback"): lambda call: _equal(call.json(), {"message": SSO_OFF}),
    ("POST", "/api/auth/oidc/complete"): lambda call: _equal(call.json(), {"message": SSO_OFF}),
    ("POST", "/api/auth/oidc/link"): lambda call: _equal(call.json(), {"message": SSO_OFF}),
    ("POST", "/api/auth/oidc/link-code"): lambda call: _equal(call.json(), {"message": SSO_OFF}),
    ("POST", "/api/auth/oidc/backchannel-logout"): lambda call: _equal(
        call.json(), {"message": SSO_OFF}
    ),
    ("GET", "/api/emergency/session"): lambda call: _equal(call.json(), NEUTRAL),
    ("GET", "/api/emergency/session/status"): lambda call: _equal(call.json(), NEUTRAL),
    ("DELETE", "/api/emergency/session"): lambda call: _equal(call.json(), NEUTRAL),
}


def _equal(actual: Any, expected: Any) -> None:
    assert actual == expected


def _contains(call: Call, content_type: str, fragment: bytes) -> None:
    assert call.content_type.startswith(content_type), call.content_type
    assert fragment in call.data


def _blob_list(call: Call) -> None:
    listing = BlobList.model_validate(call.json())
    names = [b.name for b in listing.blobs]
    assert names == sorted(["patient-profile.jpg", call.params["blob"]]), names
    assert listing.hasProfileImage


def _uploaded(call: Call) -> None:
    assert UploadResponse.model_validate(call.json()).blob.name.startswith("notes-")


def _view_link(call: Call) -> None:
    link = ViewLink.model_validate(call.json()).url
    p = call.params
    assert link.startswith(f"/api/blobs/{p['container']}/{p['folder']}/{p['blob']}/view?link=")


def _folder_names(call: Call) -> None:
    """Admins see every folder of the container; others only those assigned to them."""
    body = FoldersResponse.model_validate(call.json())
    container = call.params["container"]
    if call.actor.user.role == Role.ADMIN:
        assert body.folders == call.world.folders_of[container]
    else:
        assert body.folders == [call.world.my_folder]


def _container_names(call: Call) -> None:
    names = ContainersResponse.model_validate(call.json()).containers
    if call.actor.user.role == Role.ADMIN:
        assert set(call.world.folders_of) <= set(names)
    else:
        assert call.world.my_container in names
        assert not set(call.world.folders_of) - {call.world.my_container} & set(names)


def _my_assignments(call: Call) -> None:
    mine = MyAssignmentsResponse.model_validate(call.json()).assignments
    folders = {a.containerName: [f.folderName for f in a.folders] for a in mine}
    assert folders[call.world.my_container] == [call.world.my_folder]
    assert not set(call.world.folders_of) - {call.world.my_container} & set(folders)


def _my_folders(call: Call) -> None:
    """Only the caller's own folders, whatever the role (an admin's own assignments too)."""
    body = MyFoldersResponse.model_validate(call.json())
    assert [(f.containerName, f.folderName) for f in body.folders] == [
        (call.world.my_container, call.world.my_folder)
    ]


def _me(call: Call) -> None:
    assert call.json()["user"]["id"] == call.actor.user.id


# Routes whose answer is the point: an allowed call must also return the right thing.
ALLOWED_BODIES: dict[tuple[str, str], Callable[[Call], None]] = {
    ("GET", "/api/auth/me"): _me,
    ("GET", "/api/users/<int:user_id>/sso"): lambda call: _equal(call.json()["enabled"], False),
    ("GET", "/api/assignments/containers"): _container_names,
    ("GET", "/api/assignments/containers/<container>/folders"): _folder_names,
    ("GET", "/api/assignments/my-assignments"): _my_assignments,
    ("GET", "/api/assignments/my-assignments/folders"): _my_folders,
    ("GET", "/api/blobs/<container>/<folder>"): _blob_list,
    ("POST", "/api/blobs/<container>/<folder>"): _uploaded,
    ("GET", "/api/blobs/<container>/<folder>/profile-image"): lambda call: _equal(
        call.data, _photo(call.params["folder"])
    ),
    ("DELETE", "/api/blobs/<container>/<folder>/<blob>"): lambda call: _equal(
        call.json(), {"message": "File deleted successfully"}
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/url"): _view_link,
    ("GET", "/api/blobs/<container>/<folder>/<blob>/view"): lambda call: _equal(
        call.data, _report(call.params["folder"])[1]
    ),
}


# Routes whose successful call needs state the matrix does not make (a live mfaToken, a pending
# authenticator, fresh passkey options, a factor): past the policy, the domain's own answer.
BEYOND_POLICY: dict[tuple[str, str], tuple[int, str]] = {
    # No such intake item (the matrix's admin asks for one that is not there).
    ("GET", "/api/intake/items/<int:item_id>"): (404, INTAKE_ITEM_NOT_FOUND),
    ("GET", "/api/intake/items/<int:item_id>/content"): (404, INTAKE_ITEM_NOT_FOUND),
    ("GET", "/api/intake/items/<int:item_id>/thumbnail"): (404, INTAKE_ITEM_NOT_FOUND),
    ("POST", "/api/intake/items/<int:item_id>/file"): (404, INTAKE_ITEM_NOT_FOUND),
    ("POST", "/api/intake/items/<int:item_id>/delete"): (404, INTAKE_ITEM_NOT_FOUND),
    ("POST", "/api/intake/items/<int:item_id>/split"): (404, INTAKE_ITEM_NOT_FOUND),
    ("POST", "/api/intake/items/<int:item_id>/rotate"): (404, INTAKE_ITEM_NOT_FOUND),
    ("POST", "/api/auth/login/mfa"): (401, MFA_EXPIRED),
    ("POST", "/api/auth/login/mfa/webauthn/options"): (401, MFA_EXPIRED),
    ("POST", "/api/auth/mfa/totp/confirm"): (400, mfa.NO_PENDING),
    ("DELETE", "/api/auth/mfa/totp"): (404, mfa.NO_TOTP),
    ("POST", "/api/auth/mfa/webauthn/register"): (400, mfa.NO_REGISTRATION),
    ("DELETE", "/api/auth/mfa/webauthn/<int:passkey_id>"): (404, mfa.PASSKEY_NOT_FOUND),
    ("POST", "/api/auth/mfa/recovery-codes"): (400, mfa.NO_FACTOR),
    # Single sign-on is not configured here (tests/auth/test_oidc.py has it); nobody is linked.
    ("GET", "/api/auth/oidc/start"): (404, NOT_CONFIGURED),
    ("GET", "/api/auth/oidc/callback"): (404, NOT_CONFIGURED),
    ("POST", "/api/auth/oidc/complete"): (404, NOT_CONFIGURED),
    ("POST", "/api/auth/oidc/link"): (404, NOT_CONFIGURED),
    ("POST", "/api/auth/oidc/link-code"): (404, NOT_CONFIGURED),
    ("POST", "/api/auth/oidc/backchannel-logout"): (404, NOT_CONFIGURED),
    ("DELETE", "/api/users/<int:user_id>/sso-link"): (404, NOT_LINKED),
    ("PUT", "/api/users/<int:user_id>/sso-link"): (404, NOT_CONFIGURED),
    ("PUT", "/api/users/<int:user_id>/sso-expected"): (404, NOT_CONFIGURED),
    ("DELETE", "/api/users/<int:user_id>/sso-expected"): (404, NOT_EXPECTED),
    # The matrix's files have no earlier version and nothing is in the trash.
    ("GET", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/url"): (
        404,
        VERSION_NOT_FOUND,
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/view"): (
        404,
        VERSION_NOT_FOUND,
    ),
    ("POST", "/api/blobs/<container>/<folder>/<blob>/versions/<version_id>/restore"): (
        404,
        VERSION_NOT_FOUND,
    ),
    # A copy reported of a version the matrix's files do not have (not the one opened).
    ("POST", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/copied"): (
        409,
        FILE_CHANGED,
    ),
    ("POST", "/api/blobs/<container>/<folder>/trash/<blob>/restore"): (404, TRASH_NOT_FOUND),
    ("DELETE", "/api/blobs/<container>/<folder>/trash/<blob>"): (404, TRASH_NOT_FOUND),
    # Thumbnails and the viewer's pages and content open only by the link an audited listing
    # or viewer opening gave (tests/files/test_previews.py): a session's header is not enough.
    ("GET", "/api/blobs/<container>/<folder>/<blob>/thumbnail/<version_id>"): (404, NO_LINK),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/pages/<int:page>"): (
        404,
        NO_LINK,
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/content"): (
        404,
        NO_LINK,
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/image"): (
        404,
        NO_LINK,
    ),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/html"): (404, NO_LINK),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/text"): (404, NO_LINK),
    # A document's text too: its words and find only by the viewer opening's link.
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/words"): (404, NO_LINK),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/viewer/<version_id>/find"): (404, NO_LINK),
}


def test_every_route_has_an_expectation(app: Quart) -> None:
    routes = {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.endpoint not in LIBRARY_ENDPOINTS
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert routes == set(EXPECTED), "update EXPECTED in tests/auth/test_permissions.py"
    public = {route for route, (access, _) in EXPECTED.items() if access == PUBLIC}
    assert set(PUBLIC_SHAPES) == public, "every public route needs its answer in PUBLIC_SHAPES"


def _expected(
    route: tuple[str, str], role: Role, variant: str
) -> tuple[str, Callable[[Call], None]]:
    """What a signed-in caller of role gets: a description and a check of the answer."""
    _, rule = route
    access, scope = EXPECTED[route]
    if access == SCRAPER:
        return "403", lambda call: _refused(call, 403, "You don't have permission to do this.")
    if (
        (access == ADMIN and role != Role.ADMIN)
        or (access == UPLOAD and role == Role.ASSISTANT)
        or (access == EDIT_PATIENT and role not in (Role.ADMIN, Role.DOCTOR))
        or (access == INTAKE and role != Role.ADMIN)
    ):
        return "403", lambda call: _refused(call, 403, "You don't have permission to do this.")
    if scope and role != Role.ADMIN and variant != ASSIGNED:
        # Unassigned resources are invisible: the one message, nothing of the folder.
        message = SCOPE_MESSAGES["folder" if variant == NEIGHBOUR else scope]
        return f"404 {message}", lambda call: _refused(call, 404, message)
    if access == SHEET and role == Role.ASSISTANT:
        return "403", lambda call: _refused(call, 403, "You don't have permission to do this.")
    if rule in EMERGENCY_ONLY:
        return "404 without a grant", PUBLIC_SHAPES[route]
    if route in BEYOND_POLICY:
        status, message = BEYOND_POLICY[route]
        return f"allowed, then {status}", lambda call: _refused(call, status, message)
    check = PUBLIC_SHAPES.get(route) or ALLOWED_BODIES.get(route)

    def allowed(call: Call) -> None:
        assert call.status < 400
        if check is not None:
            check(call)

    return "allowed", allowed


def _refused(call: Call, status: int, message: str) -> None:
    assert call.status == status
    assert call.json() == {"message": message}


async def _call(
    client: Any,
    route: tuple[str, str],
    world: World,
    variant: str,
    actor: StaffMember,
    signed_in: bool,
) -> Call:
    method, rule = route
    params = dict(world.params[variant])
    if rule == "/api/assignments/containers/<string:container>/users/<int:user_id>":
        params["user_id"] = world.newcomer_id  # someone without the container yet
    response = await client.open(
        _url(rule, params),
        method=method,
        headers=actor.headers if signed_in else {},
        **_request(method, rule, world, variant, actor.user.username),
    )
    return Call(
        route=route,
        world=world,
        variant=variant,
        actor=actor,
        status=response.status_code,
        content_type=response.headers.get("Content-Type", ""),
        data=await response.get_data(),
        headers=response.headers,
    )


def _outcome(call: Call, expected: str, check: Callable[[Call], None]) -> str | None:
    """None when the call got what was expected, else what went wrong."""
    try:
        check(call)
    except (AssertionError, ValueError) as exc:
        body = call.data[:200]
        return f"{call.variant}: expected {expected}, got {call.status} {body!r} ({exc})"
    return None


@pytest.mark.parametrize("route", sorted(EXPECTED), ids=lambda r: f"{r[0]} {r[1]}")
async def test_route_permissions(app: Quart, settings: Settings, route: tuple[str, str]) -> None:
    method, rule = route
    access, scope = EXPECTED[route]
    client = app.test_client()
    variants = [ASSIGNED, NEIGHBOUR, UNASSIGNED] if scope == "folder" else [ASSIGNED, UNASSIGNED]
    failures = []
    for role in Role:
        for variant in variants:
            actor = await make_staff(settings, role)
            world = await _world(actor.user, app_services(app).storage)
            anonymous = await _call(client, route, world, variant, actor, signed_in=False)
            if access == PUBLIC:
                failure = _outcome(anonymous, "public", _public(route))
            elif access == SCRAPER:
                failure = _outcome(anonymous, "403", _expected(route, role, variant)[1])
            else:
                failure = _outcome(anonymous, "401", _unauthenticated)
            if failure:
                failures.append(f"anonymous {failure}")
            expected, check = _expected(route, role, variant)
            signed_in = await _call(client, route, world, variant, actor, signed_in=True)
            if failure := _outcome(signed_in, expected, check):
                failures.append(f"{role.value} {failure}")
    assert not failures, f"{method} {rule}:\n" + "\n".join(failures)


def _public(route: tuple[str, str]) -> Callable[[Call], None]:
    def check(call: Call) -> None:
        assert call.status < 500
        PUBLIC_SHAPES[route](call)

    return check


def _unauthenticated(call: Call) -> None:
    assert call.status == 401
    assert isinstance(call.json()["message"], str) and call.json()["message"]
