"""Registering NTAG 424 DNA tags: personalisation data shown once, keys sealed at rest, UIDs
unique, bad input refused clearly."""

from __future__ import annotations

import secrets

from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.tokens import sun
from bff.tokens.models import SmartToken
from bff.tokens.tagkeys import KeyUnavailable, open_sealed, url_template
from bff.users.models import Role
from config.settings import Settings
from tests.factories import make_staff


async def _register(
    client: Client, settings: Settings, body: dict[str, object], status: int = 201
) -> dict[str, object]:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.post("/patients/admin/register", json=body, headers=admin.headers)
    assert response.status_code == status, await response.get_data(as_text=True)
    result: dict[str, object] = await response.get_json()
    return result


async def test_a_generated_key_is_returned_once_and_stored_sealed(
    client: Client, settings: Settings
) -> None:
    uid = secrets.token_hex(7)
    made = await _register(client, settings, {"secureChipId": "c1", "sun": {"uid": uid}})
    personal = made["sun"]
    assert isinstance(personal, dict)
    template = url_template(settings)
    assert made["kind"] == "sun"
    assert personal["uid"] == uid.upper()
    assert personal["urlTemplate"] == made["verificationUrl"] == template.url
    assert personal["urlTemplate"] == (
        f"{settings.public_url}/patients/verify/{'0' * 32}?s={'0' * 16}"
    )
    assert (personal["piccDataOffset"], personal["macOffset"]) == (
        template.picc_data_offset,
        template.mac_offset,
    )
    key = str(personal["fileReadKey"])
    assert len(key) == 32
    meta = settings.sdm_meta_read_key_bytes().hex().upper()
    assert meta not in str(made).upper()
    row = await SmartToken.get(token_id=made["smartTokenId"])
    assert row.sun_uid == uid.upper() and row.sun_key is not None
    assert key not in row.sun_key.upper() and key.lower() not in row.sun_key
    assert open_sealed(settings, bytes.fromhex(uid), row.sun_key) == bytes.fromhex(key)
    for entry in await AuditLog.all():
        assert key not in entry.details.upper()
    admin = await make_staff(settings, Role.ADMIN)
    listed = await client.get("/patients/admin/unclaimed", headers=admin.headers)
    text = await listed.get_data(as_text=True)
    assert key not in text.upper() and row.sun_key not in text


async def test_a_given_key_is_kept_and_not_echoed(client: Client, settings: Settings) -> None:
    uid, key = secrets.token_hex(7).upper(), secrets.token_hex(16).upper()
    body = {"secureChipId": "c2", "sun": {"uid": uid, "fileReadKey": key}}
    made = await _register(client, settings, body)
    assert key not in str(made).upper()
    personal = made["sun"]
    assert isinstance(personal, dict) and personal["fileReadKey"] is None
    row = await SmartToken.get(token_id=made["smartTokenId"])
    assert row.sun_key is not None
    assert open_sealed(settings, bytes.fromhex(uid), row.sun_key) == bytes.fromhex(key)


async def test_a_sealed_key_opens_only_for_its_uid_and_token_key(
    client: Client, settings: Settings
) -> None:
    uid = secrets.token_hex(7)
    made = await _register(client, settings, {"secureChipId": "c3", "sun": {"uid": uid}})
    row = await SmartToken.get(token_id=made["smartTokenId"])
    assert row.sun_key is not None
    other = Settings(**{**settings.model_dump(), "token_key": "another-deployment-" * 3})
    for who, tag in [(other, bytes.fromhex(uid)), (settings, secrets.token_bytes(7))]:
        try:
            open_sealed(who, tag, row.sun_key)
        except KeyUnavailable:
            continue
        raise AssertionError("a sealed key opened where it should not")


async def test_tags_are_unique_by_uid(client: Client, settings: Settings) -> None:
    uid = secrets.token_hex(7)
    await _register(client, settings, {"secureChipId": "c4", "sun": {"uid": uid.lower()}})
    again = await _register(
        client, settings, {"secureChipId": "c5", "sun": {"uid": uid.upper()}}, 409
    )
    assert again == {"message": f"A tag with UID {uid.upper()} is already registered."}


async def test_bad_uids_and_keys_are_400(client: Client, settings: Settings) -> None:
    for sun_part in (
        {"uid": "04DE5F1EACC0"},  # 6 bytes
        {"uid": "04DE5F1EACC04G"},
        {"uid": "04DE5F1EACC040", "fileReadKey": "00" * 15},
    ):
        body = await _register(client, settings, {"secureChipId": "c6", "sun": sun_part}, 400)
        assert isinstance(body["message"], str) and body["message"]
    assert not await SmartToken.exists()


def test_the_meta_read_key_is_generated_once_with_mode_0600(settings: Settings) -> None:
    key = settings.sdm_meta_read_key_bytes()
    assert len(key) == sun.KEY_BYTES
    path = settings.var_dir / "sdm_meta_read_key"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.read_text().strip() == key.hex().upper()
    assert Settings(**settings.model_dump()).sdm_meta_read_key_bytes() == key
