"""The permission matrix: every route, every role, assigned and unassigned resources.

EXPECTED is the one table of who may call what. The test walks the app's URL map, so a new
route without an entry here fails.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from typing import Any

import pytest
from quart import Quart
from werkzeug.datastructures import FileStorage

from bff.auth.policy import LIBRARY_ENDPOINTS
from bff.services import app_services
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.signing import new_token_id
from bff.users.models import Role
from config.settings import Settings
from storage.base import Storage
from tests.factories import PASSWORD, assign, make_container, make_file, make_folder, make_staff

PUBLIC = "public"  # anyone, even without a token
ANY = "any"  # any signed-in role
ADMIN = "admin"  # admins only
UPLOAD = "upload"  # admins, doctors and nurses (spec section 6)

# Scope: None, "container" or "folder": non-admins must have it assigned, else 404.
EXPECTED: dict[tuple[str, str], tuple[str, str | None]] = {
    ("GET", "/api/health"): (PUBLIC, None),
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
    ("GET", "/api/blobs/audit"): (ADMIN, None),
    ("GET", "/api/assignments/my-assignments/stats"): (ANY, None),
    ("GET", "/api/blobs/<container>/<folder>"): (ANY, "folder"),
    ("POST", "/api/blobs/<container>/<folder>"): (UPLOAD, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/profile-image"): (ANY, "folder"),
    ("DELETE", "/api/blobs/<container>/<folder>/<blob>"): (ADMIN, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/url"): (ANY, "folder"),
    ("GET", "/api/blobs/<container>/<folder>/<blob>/view"): (ANY, "folder"),
    ("POST", "/patients/admin/register"): (ADMIN, None),
    ("GET", "/patients/admin/unclaimed"): (ADMIN, None),
    ("GET", "/patients/admin/assigned"): (ADMIN, None),
    ("GET", "/patients/admin/assigned-folders/<container>"): (ADMIN, None),
    ("POST", "/patients/admin/assign"): (ADMIN, None),
    ("POST", "/patients/admin/revoke"): (ADMIN, None),
    ("POST", "/patients/admin/reactivate"): (ADMIN, None),
    ("DELETE", "/patients/admin/delete/<token_id>"): (ADMIN, None),
    ("GET", "/patients/verify/<token_id>"): (PUBLIC, None),
    ("GET", "/api/emergency/session"): (PUBLIC, None),
    ("DELETE", "/api/emergency/session"): (PUBLIC, None),
}

# The web app's pages answer 503 until `make frontend` has built them.
WEB_PAGES = {"/", "/<app_path:path>", "/patients/verify/<token_id>"}
# Open to all, but without an emergency grant (a cookie) they answer the neutral 404.
EMERGENCY_ONLY = {"/api/emergency/session"}
SCOPE_MESSAGES = {"container": "Container not found", "folder": "Folder not found"}


@dataclass
class World:
    """Resources a caller has (assigned) and has not (unassigned), and another user."""

    params: dict[str, dict[str, Any]]
    subject_id: int
    subject_username: str
    newcomer_id: int


async def _world(actor_user: Any, storage: Storage) -> World:
    mine = await make_container()
    my_folder = await make_folder(mine, "patient-1")
    theirs = await make_container()
    their_folder = await make_folder(theirs, "patient-2")
    for folder in (my_folder, their_folder):
        await make_file(storage, folder, "report.txt")
        await make_file(storage, folder, "patient-profile.jpg", b"\xff\xd8 jpeg", "image/jpeg")
    await assign(actor_user, mine, my_folder)
    subject = await make_staff_user()
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
        "blob": "report.txt",
        "token_id": active.token_id,
        "tokens": {"unclaimed": unclaimed.token_id, "revoked": revoked.token_id},
    }
    return World(
        params={
            "assigned": {"container": mine.name, "folder": my_folder.name, **common},
            "unassigned": {"container": theirs.name, "folder": their_folder.name, **common},
        },
        subject_id=subject.id,
        subject_username=subject.username,
        newcomer_id=(await make_staff_user()).id,
    )


async def make_staff_user() -> Any:
    from tests.factories import make_user

    return await make_user(Role.NURSE)


def _request(method: str, rule: str, world: World, variant: str, username: str) -> dict[str, Any]:
    """Keyword arguments of a valid request to a route (body and query string)."""
    if (method, rule) == ("POST", "/api/blobs/<container>/<folder>"):
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
        ("POST", "/api/admin/containers"): lambda: {"name": f"new-ward-{fresh}"},
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
    }
    query = {"type": "container"} if rule.endswith("<int:assignment_id>") else {}
    make = bodies.get((method, rule))
    return (make() if make else None), query


def _url(rule: str, params: dict[str, Any]) -> str:
    url = rule
    params = {"filename": "swagger-ui.css", "path": "dashboard", **params}
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


def test_every_route_has_an_expectation(app: Quart) -> None:
    routes = {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.endpoint not in LIBRARY_ENDPOINTS
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert routes == set(EXPECTED), "update EXPECTED in tests/auth/test_permissions.py"


@pytest.mark.parametrize("route", sorted(EXPECTED), ids=lambda r: f"{r[0]} {r[1]}")
async def test_route_permissions(app: Quart, settings: Settings, route: tuple[str, str]) -> None:
    method, rule = route
    access, scope = EXPECTED[route]
    client = app.test_client()
    outcomes = []
    for role in Role:
        for variant in ("assigned", "unassigned"):
            actor = await make_staff(settings, role)
            world = await _world(actor.user, app_services(app).storage)
            params = dict(world.params[variant])
            if rule == "/api/assignments/containers/<string:container>/users/<int:user_id>":
                params["user_id"] = world.newcomer_id  # someone without the container yet
            url = _url(rule, params)
            anonymous = await client.open(
                url, method=method, **_request(method, rule, world, variant, actor.user.username)
            )
            if access == PUBLIC:
                assert anonymous.status_code not in (401, 403), url
            else:
                assert anonymous.status_code == 401, url
            response = await client.open(
                url,
                method=method,
                headers=actor.headers,
                **_request(method, rule, world, variant, actor.user.username),
            )
            payload = await response.get_json()
            status = response.status_code
            if (access == ADMIN and role != Role.ADMIN) or (
                access == UPLOAD and role == Role.ASSISTANT
            ):
                expected = "403"
                ok = status == 403
            elif scope and role != Role.ADMIN and variant == "unassigned":
                expected = f"404 {SCOPE_MESSAGES[scope]}"
                ok = status == 404 and payload == {"message": SCOPE_MESSAGES[scope]}
            elif rule in EMERGENCY_ONLY:
                expected = "404 without a grant"
                ok = status == 404
            else:
                expected = "allowed"
                ok = status < 400 or (rule in WEB_PAGES and status == 503)
            outcomes.append((role.value, variant, status, expected, ok))
    failures = [o for o in outcomes if not o[4]]
    assert not failures, f"{method} {rule}: {failures}"
