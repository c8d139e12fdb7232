"""SmartToken registry and lifecycle: every transition, every invalid one, reasons, audit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.schemas import DELETE_REASONS, REVOKE_REASONS
from bff.tokens.signing import SIGNATURE, sign
from bff.users.models import Role
from config.settings import Settings
from tests.factories import StaffMember, make_container, make_folder, make_staff


class Desk:
    """An admin at the SmartToken desk, with a container of three patient folders."""

    def __init__(self, client: Client, admin: StaffMember) -> None:
        self.client = client
        self.admin = admin

    async def call(self, method: str, path: str, json: Any = None) -> tuple[int, Any]:
        response = await self.client.open(
            "/patients/admin" + path, method=method, json=json, headers=self.admin.headers
        )
        return response.status_code, await response.get_json()

    async def register(self, chip: str) -> str:
        status, body = await self.call("POST", "/register", {"secureChipId": chip})
        assert status == 201, body
        token_id: str = body["smartTokenId"]
        return token_id

    async def assign(
        self, token_id: str, folder: str, name: str = "Ada Patient", **extra: Any
    ) -> tuple[int, Any]:
        return await self.call(
            "POST",
            "/assign",
            {
                "tokenId": token_id,
                "containerName": "er-ward",
                "folderName": folder,
                "patientName": name,
                **extra,
            },
        )


@pytest.fixture
async def desk(client: Client, settings: Settings) -> Desk:
    container = await make_container("er-ward")
    for name in ("patient-1", "patient-2", "patient-3"):
        await make_folder(container, name)
    return Desk(client, await make_staff(settings, Role.ADMIN))


async def test_register_returns_a_signed_verification_url_once(
    desk: Desk, settings: Settings
) -> None:
    status, body = await desk.call("POST", "/register", {"secureChipId": "CHIP-0001"})
    assert status == 201
    token_id = body["smartTokenId"]
    assert re.fullmatch(r"[0-9A-F]{32}", token_id)
    signature = sign(settings, token_id)
    assert SIGNATURE.fullmatch(signature)
    assert (
        body["verificationUrl"] == f"{settings.public_url}/patients/verify/{token_id}?s={signature}"
    )
    assert body["secureChipId"] == "CHIP-0001"
    # The signature is not stored anywhere in the database.
    row = await SmartToken.get(token_id=token_id)
    assert signature not in str(row.__dict__)
    status, listed = await desk.call("GET", "/unclaimed")
    assert [t["smartTokenId"] for t in listed["tokens"]] == [token_id]
    assert "verificationUrl" not in listed["tokens"][0]
    duplicate, message = await desk.call("POST", "/register", {"secureChipId": "CHIP-0001"})
    assert duplicate == 409 and "already registered" in message["message"]
    bad, _ = await desk.call("POST", "/register", {"secureChipId": "chip with spaces/../"})
    assert bad == 400
    assert await AuditLog.filter(operation="token_register").count() == 1


async def test_the_signature_depends_on_the_token_key(settings: Settings) -> None:
    other = settings.model_copy(update={"token_key": "another-key-" + "x" * 40})
    assert sign(settings, "A" * 32) != sign(other, "A" * 32)
    assert sign(settings, "A" * 32) != sign(settings, "B" * 32)


async def test_assign_then_list_and_the_assigned_folder_map(desk: Desk) -> None:
    token = await desk.register("chip-a")
    status, body = await desk.assign(
        token, "patient-2", "Ada Patient", patientDateOfBirth="1980-02-29"
    )
    assert status == 200, body
    assert body["message"] == "Token assigned successfully"
    assert body["reassignment"] is False
    assert body["token"]["status"] == "assigned"
    assert body["token"]["patientDateOfBirth"] == "1980-02-29"
    assert (body["token"]["containerName"], body["token"]["folderName"]) == ("er-ward", "patient-2")
    _, unclaimed = await desk.call("GET", "/unclaimed")
    assert unclaimed["tokens"] == []
    _, assigned = await desk.call("GET", "/assigned")
    assert [t["smartTokenId"] for t in assigned["tokens"]] == [token]
    _, folders = await desk.call("GET", "/assigned-folders/er-ward")
    assert folders["assignedFolders"] == {
        "patient-2": {"tokenId": token, "patientName": "Ada Patient", "status": "assigned"}
    }
    missing, _ = await desk.call("GET", "/assigned-folders/no-such-ward")
    assert missing == 404


async def test_blank_patient_name_and_date_rules(desk: Desk) -> None:
    token = await desk.register("chip-b")
    status, body = await desk.assign(token, "patient-1", "   ", patientDateOfBirth="")
    assert status == 200
    assert body["token"]["patientName"] == "Unknown Patient"
    assert body["token"]["patientDateOfBirth"] is None
    other = await desk.register("chip-c")
    for bad_date in ("31/12/1980", "1980-13-01", "yesterday"):
        status, _ = await desk.assign(other, "patient-3", patientDateOfBirth=bad_date)
        assert status == 400
    status, body = await desk.assign(other, "patient-3", patientDateOfBirth="2999-01-01")
    assert status == 400 and "future" in body["message"]


async def test_assigning_a_linked_folder_moves_the_link(desk: Desk) -> None:
    first = await desk.register("chip-1")
    second = await desk.register("chip-2")
    assert (await desk.assign(first, "patient-1", "Old Link"))[0] == 200
    status, body = await desk.assign(second, "patient-1", "New Link")
    assert status == 200
    assert body["reassignment"] is True
    assert body["previousTokenId"] == first
    assert body["message"] == "Token reassigned successfully"
    old = await SmartToken.get(token_id=first)
    assert old.status is TokenStatus.REVOKED and old.folder_id is None
    assert "Reassigned" in (old.revoke_reason or "")
    _, folders = await desk.call("GET", "/assigned-folders/er-ward")
    assert folders["assignedFolders"]["patient-1"]["tokenId"] == second
    # The detached token cannot come back for a folder it no longer has.
    status, body = await desk.call("POST", "/reactivate", {"tokenId": first})
    assert status == 409 and "moved to another token" in body["message"]


async def test_revoke_reactivate_and_their_invalid_transitions(desk: Desk) -> None:
    token = await desk.register("chip-r")
    status, body = await desk.call("POST", "/revoke", {"tokenId": token, "reason": "Other"})
    assert status == 409  # unclaimed cannot be revoked
    assert (await desk.assign(token, "patient-1"))[0] == 200
    status, body = await desk.call("POST", "/reactivate", {"tokenId": token})
    assert status == 409  # assigned cannot be reactivated
    status, body = await desk.call("POST", "/revoke", {"tokenId": token, "reason": ""})
    assert (status, body["message"]) == (400, "Please provide a reason for revocation")
    status, body = await desk.call(
        "POST", "/revoke", {"tokenId": token, "reason": "I felt like it"}
    )
    assert status == 400 and "from the list" in body["message"]
    status, body = await desk.call(
        "POST", "/revoke", {"tokenId": token, "reason": "Patient reported token stolen"}
    )
    assert status == 200
    assert body["message"] == "Token remotely disconnected successfully"
    assert body["token"]["status"] == "revoked"
    assert body["token"]["revokeReason"] == "Patient reported token stolen"
    status, body = await desk.call("POST", "/revoke", {"tokenId": token, "reason": "Other"})
    assert status == 409  # already revoked
    status, body = await desk.assign(token, "patient-2")
    assert status == 409 and "revoked" in body["message"]
    status, body = await desk.call("POST", "/reactivate", {"tokenId": token})
    assert status == 200
    assert body["message"] == "Token reactivated successfully"
    assert body["token"]["status"] == "assigned" and body["token"]["revokeReason"] is None
    status, _ = await desk.call("POST", "/reactivate", {"tokenId": "F" * 32})
    assert status == 404


@pytest.mark.parametrize("reason", REVOKE_REASONS)
async def test_every_listed_revoke_reason_is_accepted(desk: Desk, reason: str) -> None:
    token = await desk.register(f"chip-{abs(hash(reason))}")
    await desk.assign(token, "patient-1")
    status, _ = await desk.call("POST", "/revoke", {"tokenId": token, "reason": reason})
    assert status == 200


async def test_delete_rules(desk: Desk) -> None:
    token = await desk.register("chip-d")
    status, body = await desk.call("DELETE", f"/delete/{token}", {"reason": DELETE_REASONS[0]})
    assert status == 409 and "unclaimed" in body["message"]
    await desk.assign(token, "patient-3")
    status, body = await desk.call("DELETE", f"/delete/{token}", {"reason": ""})
    assert (status, body["message"]) == (400, "Please provide a reason for deletion")
    status, body = await desk.call("DELETE", f"/delete/{token}", {"reason": "Other"})
    assert status == 400  # a revoke reason is not a delete reason
    status, body = await desk.call(
        "DELETE", f"/delete/{token}", {"reason": "Patient deceased - cleanup required"}
    )
    assert (status, body["message"]) == (200, "Token permanently deleted successfully")
    assert not await SmartToken.exists(token_id=token)
    status, _ = await desk.call("DELETE", f"/delete/{token}", {"reason": DELETE_REASONS[0]})
    assert status == 404
    entry = await AuditLog.get(operation="token_delete")
    assert token in entry.details and "Patient deceased" in entry.details
    assert entry.folder_name == "patient-3"


async def test_every_transition_is_audited(desk: Desk) -> None:
    token = await desk.register("chip-audit")
    await desk.assign(token, "patient-1")
    await desk.call("POST", "/revoke", {"tokenId": token, "reason": "Other"})
    await desk.call("POST", "/reactivate", {"tokenId": token})
    await desk.call("DELETE", f"/delete/{token}", {"reason": "Administrative cleanup"})
    operations = [e.operation for e in await AuditLog.all().order_by("id")]
    assert operations == [
        "token_register",
        "token_assign",
        "token_revoke",
        "token_reactivate",
        "token_delete",
    ]


async def test_staff_cannot_touch_tokens(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.get("/patients/admin/unclaimed", headers=nurse.headers)
    assert response.status_code == 403
    assert (await client.get("/patients/admin/unclaimed")).status_code == 401
    unknown = await client.get("/patients/admin/nothing-here", headers=nurse.headers)
    assert unknown.status_code == 404
    assert unknown.headers["Content-Type"].startswith("application/json")


async def test_the_cli_registers_a_batch(client: Client, settings: Settings) -> None:
    import asyncio
    import os
    import sys

    async def cli(*args: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bff",
            "tokens",
            "register",
            *args,
            env={
                **os.environ,
                "BFF_DATABASE_URL": settings.database_url,
                "BFF_VAR_DIR": str(settings.var_dir),
            },
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 120)
        return process.returncode or 0, out.decode(), err.decode()

    code, out, _ = await cli("--chip", "BATCH", "--count", "3")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == "smartTokenId,secureChipId,verificationUrl"
    rows = [line.split(",") for line in lines[1:]]
    assert [r[1] for r in rows] == ["BATCH-0001", "BATCH-0002", "BATCH-0003"]
    for token_id, _, url in rows:
        assert url.endswith(f"/patients/verify/{token_id}?s={sign(settings, token_id)}")
    assert await SmartToken.filter(status=TokenStatus.UNCLAIMED).count() == 3
    code, _, err = await cli("--chip", "BATCH-0002")
    assert code == 1 and "already registered" in err
    code, _, err = await cli("--chip", "bad chip")
    assert code == 2
