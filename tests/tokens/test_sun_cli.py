"""`tokens register --sun-uid/--sun-csv` and `tokens simulate-tap`, run as processes against
the test database; their taps are then opened through the app, as a phone would."""

from __future__ import annotations

import csv
import io
import secrets
import subprocess
import sys
from pathlib import Path

from quart import Quart

from bff.services import app_services
from bff.tokens.models import SmartToken
from bff.users.models import Role
from config.settings import Settings
from tests.factories import make_container, make_folder, make_staff
from tests.sun_tag import SimulatedTag, path_of
from tools.devserver import REPO, local_env


def bff(
    settings: Settings, tmp_path: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python -m bff args` on the test's database and generated keys."""
    environment = local_env(
        tmp_path,
        database_url=settings.database_url,
        var_dir=str(settings.var_dir),
        **env,
    )
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args],
        env=environment,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def rows(output: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(output)))


async def _assign(app: Quart, token_id: str) -> None:
    settings = app_services(app).settings
    admin = await make_staff(settings, Role.ADMIN)
    folder = await make_folder(await make_container(), "patient-3")
    response = await app.test_client().post(
        "/patients/admin/assign",
        json={
            "tokenId": token_id,
            "containerName": folder.container.name,
            "folderName": "patient-3",
            "patientName": "Tap Patient",
        },
        headers=admin.headers,
    )
    assert response.status_code == 200


async def _opens(app: Quart, url: str) -> bool:
    browser = app.test_client()
    response = await browser.get(path_of(url))
    assert response.status_code == 303
    return (await browser.get("/api/emergency/session")).status_code == 200


async def test_register_prints_personalisation_and_simulated_taps_open_once(
    app: Quart, settings: Settings, tmp_path: Path
) -> None:
    uid = secrets.token_hex(7).upper()
    made = bff(settings, tmp_path, "tokens", "register", "--chip", "cli-tag", "--sun-uid", uid)
    assert made.returncode == 0, made.stderr
    [row] = rows(made.stdout)
    assert row["uid"] == uid and len(row["fileReadKey"]) == 32
    assert row["urlTemplate"] == f"{settings.public_url}/patients/verify/{'0' * 32}?s={'0' * 16}"
    assert settings.sdm_meta_read_key_bytes().hex().upper() not in made.stdout
    await _assign(app, row["smartTokenId"])
    first = bff(settings, tmp_path, "tokens", "simulate-tap", row["smartTokenId"])
    assert first.returncode == 0, first.stderr
    assert await _opens(app, first.stdout.strip())
    assert not await _opens(app, first.stdout.strip())  # the same URL again
    second = bff(settings, tmp_path, "tokens", "simulate-tap", row["smartTokenId"])
    assert second.stdout != first.stdout
    assert await _opens(app, second.stdout.strip())
    # A tag personalised from the CSV (its key, template and offsets) taps the same way.
    tag = SimulatedTag(
        uid=bytes.fromhex(uid),
        meta_read_key=settings.sdm_meta_read_key_bytes(),
        file_read_key=bytes.fromhex(row["fileReadKey"]),
        template=row["urlTemplate"],
        picc_data_offset=int(row["piccDataOffset"]),
        mac_offset=int(row["macOffset"]),
        counter=2,
    )
    assert await _opens(app, tag.tap())


async def test_a_batch_from_csv(app: Quart, settings: Settings, tmp_path: Path) -> None:
    uids = [secrets.token_hex(7).upper() for _ in range(3)]
    key = secrets.token_hex(16).upper()
    batch = tmp_path / "tags.csv"
    batch.write_text(f"uid\n{uids[0]}\n\n{uids[1].lower()},{key}\n{uids[2]}\n")
    made = bff(settings, tmp_path, "tokens", "register", "--chip", "ward", "--sun-csv", str(batch))
    assert made.returncode == 0, made.stderr
    printed = rows(made.stdout)
    assert [r["secureChipId"] for r in printed] == ["ward-0001", "ward-0002", "ward-0003"]
    assert [r["uid"] for r in printed] == uids
    assert printed[1]["fileReadKey"] == "" and len(printed[0]["fileReadKey"]) == 32
    assert await SmartToken.filter(sun_uid__in=uids).count() == 3


async def test_bad_input_and_refusals(app: Quart, settings: Settings, tmp_path: Path) -> None:
    bad = bff(settings, tmp_path, "tokens", "register", "--chip", "x", "--sun-uid", "04AB")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert "14 hex characters" in bad.stderr
    clash = bff(
        settings,
        tmp_path,
        "tokens",
        "register",
        "--chip",
        "x",
        "--sun-uid",
        "04" * 7,
        "--count",
        "3",
    )
    assert clash.returncode == 2 and "--sun-csv" in clash.stderr
    static = bff(settings, tmp_path, "tokens", "register", "--chip", "old")
    token_id = rows(static.stdout)[0]["smartTokenId"]
    refused = bff(settings, tmp_path, "tokens", "simulate-tap", token_id)
    assert refused.returncode == 1 and "static link" in refused.stderr and refused.stdout == ""
    unknown = bff(settings, tmp_path, "tokens", "simulate-tap", "F" * 32)
    assert unknown.returncode == 1 and "not found" in unknown.stderr
    sun = bff(settings, tmp_path, "tokens", "register", "--chip", "s", "--sun-uid", "04" * 7)
    sun_id = rows(sun.stdout)[0]["smartTokenId"]
    elsewhere = bff(
        settings, tmp_path, "tokens", "simulate-tap", sun_id, token_key="another-deployment" * 3
    )
    assert elsewhere.returncode == 1 and "another BFF_TOKEN_KEY" in elsewhere.stderr
    assert elsewhere.stdout == ""
