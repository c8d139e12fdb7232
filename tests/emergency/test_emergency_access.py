"""Emergency access: a genuine SmartToken link opens a short read-only grant for one folder;
everything else gets one neutral answer; guessing is throttled; revocation bites at once."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from quart import Quart
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.containers.models import Folder
from bff.emergency.models import EmergencyGrant
from bff.emergency.service import VerifyThrottle, verify
from bff.errors import ApiError
from bff.services import app_services
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.signing import new_token_id, sign
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import make_container, make_file, make_folder, make_staff
from tests.helpers import web_app_index

NEUTRAL = {"message": "This emergency access link is not valid or has expired."}


class Scene:
    """A patient folder with files, a token for it, and a responder's browser."""

    def __init__(self, app: Quart) -> None:
        self.app = app
        self.settings: Settings = app_services(app).settings
        self.browser: Client = app.test_client()

    async def setup(self) -> Scene:
        storage = app_services(self.app).storage
        container = await make_container()
        self.container = container.name
        self.folder = await make_folder(container, "patient-7")
        self.other = await make_folder(container, "patient-8")
        await make_file(storage, self.folder, "allergies.txt", b"penicillin")
        await make_file(storage, self.folder, "patient-profile.jpg", b"\xff\xd8jpeg", "image/jpeg")
        await make_file(storage, self.other, "secret.txt", b"not yours")
        self.token = await SmartToken.create(
            token_id=new_token_id(),
            secure_chip_id=f"chip-{self.container}",
            status=TokenStatus.ASSIGNED,
            folder=self.folder,
            patient_name="Grace Hopper",
            patient_date_of_birth=datetime(1906, 12, 9).date(),
            assigned_at=datetime.now(UTC),
        )
        return self

    def link(self, token_id: str | None = None, signature: str | None = None) -> str:
        token_id = token_id or self.token.token_id
        signature = signature if signature is not None else sign(self.settings, token_id)
        return f"/patients/verify/{token_id}?s={signature}"

    async def scan(self, link: str | None = None, address: str = "203.0.113.5") -> Any:
        return await self.browser.get(link or self.link(), scope_base={"client": (address, 40000)})

    async def session(self) -> tuple[int, Any]:
        response = await self.browser.get("/api/emergency/session")
        return response.status_code, await response.get_json()


@pytest.fixture
async def scene(database_url: str, run_dir: Path) -> AsyncIterator[Scene]:
    settings = make_settings(
        database_url,
        run_dir,
        verify_max_failures_per_address=3,
        verify_max_failures_per_token=5,
    )
    async with started_app(settings) as app:
        yield await Scene(app).setup()


async def test_a_genuine_link_opens_the_patients_folder(scene: Scene) -> None:
    response = await scene.scan()
    assert response.status_code == 303
    assert response.headers["Location"] == "/emergency"
    cookie = response.headers["Set-Cookie"]
    assert "bff_emergency=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert scene.token.token_id not in response.headers["Location"]
    status, body = await scene.session()
    assert status == 200
    assert body["patientName"] == "Grace Hopper"
    assert body["patientDateOfBirth"] == "1906-12-09"
    assert body["hasProfileImage"] is True
    assert body["patient"] is None  # the folder records no patient: the token's name is shown
    assert [f["name"] for f in body["files"]] == ["allergies.txt", "patient-profile.jpg"]
    expires = datetime.fromisoformat(body["expiresAt"].replace("Z", "+00:00"))
    assert timedelta(minutes=14) < expires - datetime.now(UTC) <= timedelta(minutes=15)
    base = f"/api/blobs/{scene.container}/patient-7"
    view = await scene.browser.get(f"{base}/allergies.txt/view", headers={"Range": "bytes=0-3"})
    assert view.status_code == 206 and await view.get_data() == b"peni"
    photo = await scene.browser.get(f"{base}/profile-image")
    assert photo.status_code == 200
    entry = await AuditLog.get(operation="emergency_access")
    assert entry.client_address == "203.0.113.5"
    assert (entry.container_name, entry.folder_name) == (scene.container, "patient-7")
    viewed = await AuditLog.get(operation="file_view", blob_name="allergies.txt")
    assert viewed.role == "emergency"


async def test_the_view_carries_the_folders_patient_as_staff_see_it(scene: Scene) -> None:
    await Folder.filter(id=scene.folder.id).update(
        patient_name="Grace B. Hopper",
        patient_birth_date=datetime(1906, 12, 9).date(),
        patient_record_number="MRN-1906",
    )
    await scene.scan()
    status, body = await scene.session()
    assert status == 200
    assert body["patient"] == {
        "name": "Grace B. Hopper",
        "dateOfBirth": "1906-12-09",
        "recordNumber": "MRN-1906",
    }
    assert body["patientName"] == "Grace Hopper"  # the token's, as it was given


async def test_the_grant_is_read_only_and_for_one_folder(scene: Scene) -> None:
    await scene.scan()
    other = await scene.browser.get(f"/api/blobs/{scene.container}/patient-8/secret.txt/view")
    assert other.status_code == 404
    listing = await scene.browser.get(f"/api/blobs/{scene.container}/patient-7")
    assert listing.status_code == 401  # staff endpoints need a staff session
    upload = await scene.browser.post(f"/api/blobs/{scene.container}/patient-7")
    assert upload.status_code == 401
    link = await scene.browser.get(f"/api/blobs/{scene.container}/patient-7/allergies.txt/url")
    assert link.status_code == 401


@pytest.mark.parametrize("case", ["forged", "unknown", "unclaimed", "revoked", "deleted"])
async def test_every_failure_looks_the_same(scene: Scene, case: str) -> None:
    link = scene.link()
    if case == "forged":
        link = scene.link(signature="0123ABCD-0123ABCD-0123ABCD-0123ABCD")
    elif case == "unknown":
        link = scene.link(token_id=new_token_id())
    elif case == "unclaimed":
        token = await SmartToken.create(token_id=new_token_id(), secure_chip_id="spare")
        link = scene.link(token_id=token.token_id)
    elif case == "revoked":
        await _revoke(scene)  # through the admin's API, as a revocation really happens
    else:
        await _delete(scene)
    response = await scene.scan(link)
    assert response.status_code == 303
    assert response.headers["Location"] == "/emergency"
    assert "bff_emergency=;" in response.headers.get("Set-Cookie", "bff_emergency=;")
    assert await scene.session() == (404, NEUTRAL)
    refused = await AuditLog.get(operation="emergency_refused")
    assert refused.client_address == "203.0.113.5"
    assert not await EmergencyGrant.exists()


@pytest.mark.parametrize(
    "link",
    [
        "/patients/verify/ABC?s=0123ABCD-0123ABCD-0123ABCD-0123ABCD",
        "/patients/verify/{id}",
        "/patients/verify/{id}?s=0123abcd-0123abcd-0123abcd-0123abcd",
        "/patients/verify/{id}?s=0123ABCD-0123ABCD",
        "/patients/verify/{id}?s=<script>",
    ],
)
async def test_malformed_links_get_the_web_apps_page(scene: Scene, link: str) -> None:
    response = await scene.scan(link.replace("{id}", scene.token.token_id))
    assert response.status_code == 200
    assert await response.get_data() == web_app_index()  # the page explains what is wrong
    assert "Location" not in response.headers
    assert "Set-Cookie" not in response.headers
    assert not await AuditLog.exists()


async def _grant_cookie(scene: Scene) -> str:
    """Scan the token and return the grant id the responder's browser was given."""
    response = await scene.scan()
    assert response.status_code == 303
    cookie = response.headers["Set-Cookie"]
    grant_id = cookie.split(";", 1)[0].removeprefix("bff_emergency=")
    assert grant_id and await EmergencyGrant.exists(id=grant_id)
    return grant_id


async def _with_cookie(scene: Scene, grant_id: str) -> list[tuple[int, Any]]:
    """What the emergency session and a file view answer to this grant id, sent as a cookie by
    a client without a cookie jar (so no answer that clears the cookie can hide a live grant)."""
    client = scene.app.test_client(use_cookies=False)
    headers = {"Cookie": f"bff_emergency={grant_id}"}
    session = await client.get("/api/emergency/session", headers=headers)
    base = f"/api/blobs/{scene.container}/patient-7"
    view = await client.get(f"{base}/allergies.txt/view", headers=headers)
    viewed = await view.get_data() if view.status_code == 200 else await view.get_json()
    return [(session.status_code, await session.get_json()), (view.status_code, viewed)]


REFUSED = [(404, NEUTRAL), (401, {"message": "Authentication required. Please log in."})]


async def _admin_call(scene: Scene, method: str, url: str, body: dict[str, Any]) -> Any:
    admin = await make_staff(scene.settings, Role.ADMIN)
    response = await scene.app.test_client().open(
        url, method=method, json=body, headers=admin.headers
    )
    assert response.status_code in (200, 201), await response.get_data(as_text=True)
    return await response.get_json()


async def _revoke(scene: Scene) -> None:
    reason = {"tokenId": scene.token.token_id, "reason": "Token lost by patient"}
    changed = await _admin_call(scene, "POST", "/patients/admin/revoke", reason)
    assert changed["token"]["status"] == "revoked"


async def _reactivate(scene: Scene) -> None:
    body = {"tokenId": scene.token.token_id}
    changed = await _admin_call(scene, "POST", "/patients/admin/reactivate", body)
    assert changed["token"]["status"] == "assigned"


async def _reassign(scene: Scene) -> None:
    """A new device for the same patient folder: the old token is revoked by the move."""
    chip = {"secureChipId": f"replacement-{scene.container}"}
    new = await _admin_call(scene, "POST", "/patients/admin/register", chip)
    moved = await _admin_call(
        scene,
        "POST",
        "/patients/admin/assign",
        {
            "tokenId": new["smartTokenId"],
            "containerName": scene.container,
            "folderName": "patient-7",
            "patientName": "Grace Hopper",
        },
    )
    assert moved["reassignment"] is True
    assert moved["previousTokenId"] == scene.token.token_id


async def _delete(scene: Scene) -> None:
    url = f"/patients/admin/delete/{scene.token.token_id}"
    await _admin_call(scene, "DELETE", url, {"reason": "Physical token permanently lost"})


async def _revoke_then_reactivate(scene: Scene) -> None:
    await _revoke(scene)
    await _reactivate(scene)


@pytest.mark.parametrize(
    "transition", [_revoke, _revoke_then_reactivate, _reassign, _delete], ids=lambda f: f.__name__
)
async def test_every_transition_away_from_the_grant_ends_it_at_once(
    scene: Scene, transition: Callable[[Scene], Awaitable[None]]
) -> None:
    """Through the API, as an admin does it: the responder's cookie stays refused (after a
    reactivation too: the responder must scan again) and no grant row remains."""
    grant_id = await _grant_cookie(scene)
    assert [status for status, _ in await _with_cookie(scene, grant_id)] == [200, 200]
    await transition(scene)
    assert not await EmergencyGrant.exists()
    assert await _with_cookie(scene, grant_id) == REFUSED


async def test_after_a_reactivation_a_new_scan_opens_the_folder_again(scene: Scene) -> None:
    old = await _grant_cookie(scene)
    await _revoke_then_reactivate(scene)
    new = await _grant_cookie(scene)
    assert new != old
    assert [status for status, _ in await _with_cookie(scene, new)] == [200, 200]
    assert await _with_cookie(scene, old) == REFUSED


async def test_reactivating_never_revives_a_grant_opened_while_it_was_revoked(
    scene: Scene,
) -> None:
    """A scan that read the token just before a revocation committed writes its grant just
    after it: that grant is refused while the token is revoked, and must not come back to
    life when the token is reactivated."""
    await _revoke(scene)
    late = await EmergencyGrant.create(
        id=secrets.token_urlsafe(32),
        token_id=scene.token.id,
        folder_id=scene.folder.id,
        expires_at=datetime.now(UTC) + timedelta(minutes=15),
        client_address="203.0.113.5",
    )
    assert await _with_cookie(scene, late.id) == REFUSED
    await _reactivate(scene)
    assert not await EmergencyGrant.exists()
    assert await _with_cookie(scene, late.id) == REFUSED


async def test_an_expired_grant_no_longer_opens_anything(scene: Scene) -> None:
    await scene.scan()
    await EmergencyGrant.all().update(expires_at=datetime.now(UTC) - timedelta(seconds=1))
    assert await scene.session() == (404, NEUTRAL)
    view = await scene.browser.get(f"/api/blobs/{scene.container}/patient-7/allergies.txt/view")
    assert view.status_code == 401


async def test_ending_access_removes_the_grant(scene: Scene) -> None:
    await scene.scan()
    response = await scene.browser.delete("/api/emergency/session")
    assert response.status_code == 200
    assert not await EmergencyGrant.exists()
    assert await scene.session() == (404, NEUTRAL)


async def test_guessing_is_throttled_per_address_and_per_token(scene: Scene) -> None:
    forged = scene.link(signature="0123ABCD-0123ABCD-0123ABCD-0123ABCD")
    for _ in range(3):
        assert (await scene.scan(forged, address="198.51.100.1")).status_code == 303
    blocked = await scene.scan(forged, address="198.51.100.1")
    assert blocked.status_code == 429
    assert "Retry-After" in blocked.headers
    # The real signature is never held back by someone else's guessing.
    assert (await scene.scan(address="198.51.100.1")).status_code == 303
    assert (await scene.session())[0] == 200
    # Per token: guesses from many addresses add up.
    for n in range(2):
        await scene.scan(forged, address=f"192.0.2.{n}")
    assert (await scene.scan(forged, address="192.0.2.99")).status_code == 429


async def _status(client: Client, grant_id: str | None = None) -> tuple[int, Any]:
    headers = {"Cookie": f"bff_emergency={grant_id}"} if grant_id else {}
    response = await client.get("/api/emergency/session/status", headers=headers)
    return response.status_code, await response.get_json()


async def test_the_grant_status_tells_its_holder_only_whether_it_is_open(scene: Scene) -> None:
    """The page polls it to end when an admin disconnects the token: it answers the grant's
    holder with whether the grant is open, nothing of the patient, and is not audited."""
    grant_id = await _grant_cookie(scene)
    audited = await AuditLog.all().count()
    fresh = scene.app.test_client(use_cookies=False)
    open_ = await fresh.get(
        "/api/emergency/session/status", headers={"Cookie": f"bff_emergency={grant_id}"}
    )
    assert open_.status_code == 200
    assert await open_.get_json() == {"open": True}
    assert open_.headers["Cache-Control"] == "no-store"
    assert await AuditLog.all().count() == audited  # polled every few seconds: no entries

    # Anyone else: no cookie, someone else's guess, a staff session.
    admin = await make_staff(scene.settings, Role.ADMIN)
    assert await _status(fresh) == (404, NEUTRAL)
    assert await _status(fresh, secrets.token_urlsafe(32)) == (404, NEUTRAL)
    staff = await fresh.get("/api/emergency/session/status", headers=admin.headers)
    assert (staff.status_code, await staff.get_json()) == (404, NEUTRAL)

    await _revoke(scene)
    assert await _status(fresh, grant_id) == (404, NEUTRAL)
    assert await AuditLog.filter(operation="emergency_access").count() == 1


async def test_the_grant_status_ends_with_the_grant(scene: Scene) -> None:
    await scene.scan()
    response = await scene.browser.get("/api/emergency/session/status")
    assert response.status_code == 200
    await EmergencyGrant.all().update(expires_at=datetime.now(UTC) - timedelta(seconds=1))
    response = await scene.browser.get("/api/emergency/session/status")
    assert (response.status_code, await response.get_json()) == (404, NEUTRAL)


async def test_over_https_the_grant_cookie_is_host_only_and_secure(
    database_url: str, run_dir: Path
) -> None:
    """Before: over https the grant rode in `bff_emergency` (Secure, but a plain-http answer
    or a sibling subdomain could still set one: a planted grant opens the attacker's patient).
    Now it is `__Host-bff_emergency`: Secure, Path=/, no Domain; the plain name is not read."""
    settings = make_settings(database_url, run_dir, public_url="https://records.example.org")
    async with started_app(settings) as app:
        scene = await Scene(app).setup()
        response = await scene.scan()
        assert response.status_code == 303
        cookie = response.headers["Set-Cookie"]
        name, _, rest = cookie.partition("=")
        assert name == "__Host-bff_emergency", cookie
        assert "Secure" in rest and "Path=/" in rest and "HttpOnly" in rest
        assert "Domain" not in rest
        grant_id = rest.split(";", 1)[0]
        assert await EmergencyGrant.exists(id=grant_id)
        client = app.test_client(use_cookies=False)
        session = "/api/emergency/session"
        sent = await client.get(session, headers={"Cookie": f"__Host-bff_emergency={grant_id}"})
        assert sent.status_code == 200
        planted = await client.get(session, headers={"Cookie": f"bff_emergency={grant_id}"})
        assert (planted.status_code, await planted.get_json()) == (404, NEUTRAL)
        ended = await client.delete(session, headers={"Cookie": f"__Host-bff_emergency={grant_id}"})
        assert ended.status_code == 200
        cleared = ended.headers.getlist("Set-Cookie")
        assert any(c.startswith("__Host-bff_emergency=;") and "Secure" in c for c in cleared)
        assert any(c.startswith("bff_emergency=;") for c in cleared)  # one from before https


async def test_over_http_the_grant_cookie_keeps_its_plain_name(scene: Scene) -> None:
    """A developer's http://127.0.0.1 cannot set a __Host- cookie (it must be Secure)."""
    cookie = (await scene.scan()).headers["Set-Cookie"]
    assert cookie.startswith("bff_emergency=") and "Secure" not in cookie


async def test_guesses_count_once_across_processes_without_redis(scene: Scene) -> None:
    """Another process's verification throttle (its own process counts, no Redis) shares the
    app's count (issue 48, item 2): 12 forged links at once, half through each, get the
    address's 3 neutral refusals in all, the rest 429; then the app refuses at once."""
    other = VerifyThrottle(scene.settings)
    forged = "0123ABCD-0123ABCD-0123ABCD-0123ABCD"
    token_id = scene.token.token_id
    ours = app_services(scene.app).verify_throttle

    async def guess(throttle: VerifyThrottle) -> int:
        try:
            grant = await verify(token_id, forged, "198.51.100.7", scene.settings, throttle)
        except ApiError as refused:
            return refused.status
        assert grant is None
        return 303

    statuses = await asyncio.gather(*(guess(t) for t in (ours, other) for _ in range(6)))
    assert sorted(statuses) == [303] * 3 + [429] * 9
    assert await AuditLog.filter(operation="emergency_refused").count() == 3
    assert (await scene.scan(scene.link(signature=forged), "198.51.100.7")).status_code == 429
