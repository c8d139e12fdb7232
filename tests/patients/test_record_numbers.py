"""Record numbers unique across folders (issue 50): `DUP-1` given to a second folder is a 409
(the form, compared trimmed and in any case; admins are told which folder holds it), in the CSV
import a bad row with its line, two saves at once let one in, and migration 0032 keeps a
database that already holds duplicates working (their numbers kept, listed, their saves
refused until changed)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from quart import Quart
from quart.testing import QuartClient as Client

from bff.containers.models import Folder
from bff.patients.service import shared_numbers
from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff
from tests.helpers import audit_entries, error_message
from tests.patients.test_import import HEADER, in_process
from tools.devserver import REPO, query_database, throwaway_postgres

pytestmark = pytest.mark.database

ADMIN_SAYS = (
    "This record number is already in another folder: ward-1 / patient-1. A record number "
    "belongs to one patient only."
)
DOCTOR_SAYS = (
    "This record number is already in another patient's folder. A record number belongs to one "
    "patient only: check it, or ask an admin which folder holds it."
)


def url(folder: str, container: str = "ward-1") -> str:
    return f"/api/patients/{container}/{folder}"


def patient(number: str, name: str = "Ann Smith") -> dict[str, str | None]:
    return {"name": name, "dateOfBirth": None, "recordNumber": number}


async def numbers() -> dict[str, str | None]:
    return {f.name: f.patient_record_number for f in await Folder.all().order_by("name")}


async def test_a_record_number_another_folder_holds_is_refused(
    client: Client, settings: Settings
) -> None:
    ward = await make_container("ward-1")
    for name in ("patient-1", "patient-2"):
        await make_folder(ward, name)
    admin = await make_staff(settings, Role.ADMIN)
    doctor = await make_staff(settings, Role.DOCTOR)  # patient-2's only
    await assign(doctor.user, ward, await Folder.get(name="patient-2"))
    response = await client.put(url("patient-1"), json=patient("DUP-1"), headers=admin.headers)
    assert response.status_code == 200
    # Accepted twice before issue 50; now refused in any spelling, the folder left as it was.
    for spelling in ("DUP-1", "dup-1", "  Dup-1 "):
        response = await client.put(url("patient-2"), json=patient(spelling), headers=admin.headers)
        assert await error_message(response, 409) == ADMIN_SAYS, spelling
        response = await client.put(
            url("patient-2"), json=patient(spelling), headers=doctor.headers
        )
        assert await error_message(response, 409) == DOCTOR_SAYS, spelling  # no folder named
    assert await numbers() == {"patient-1": "DUP-1", "patient-2": None}
    assert [e.folder_name for e in await audit_entries("patient_update")] == ["patient-1"]
    # The folder's own number is no clash (its name changes, its number stays).
    response = await client.put(
        url("patient-1"), json=patient("dup-1", "Ann Smyth"), headers=admin.headers
    )
    assert response.status_code == 200
    # Once patient-1 gives it up, patient-2 may have it.
    response = await client.put(url("patient-1"), json=patient("DUP-2"), headers=admin.headers)
    assert response.status_code == 200
    response = await client.put(url("patient-2"), json=patient("DUP-1"), headers=doctor.headers)
    assert response.status_code == 200
    assert await numbers() == {"patient-1": "DUP-2", "patient-2": "DUP-1"}
    # The database refuses it too, whoever writes (its unique key).
    from tortoise.exceptions import IntegrityError

    with pytest.raises(IntegrityError):
        await Folder.filter(name="patient-1").update(patient_record_key="dup-1")


async def test_two_saves_at_once_let_one_in(client: Client, settings: Settings) -> None:
    ward = await make_container("ward-1")
    names = [f"patient-{n}" for n in range(1, 7)]
    for name in names:
        await make_folder(ward, name)
    admin = await make_staff(settings, Role.ADMIN)
    responses = await asyncio.gather(
        *(client.put(url(name), json=patient("MRN-RACE"), headers=admin.headers) for name in names)
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * 5, statuses
    [holder] = [name for name, n in (await numbers()).items() if n == "MRN-RACE"]
    for response in responses:
        if response.status_code == 409:
            assert await error_message(response, 409) == ADMIN_SAYS.replace("patient-1", holder)


async def test_the_import_refuses_a_duplicate_with_its_line(app: Quart, tmp_path: Path) -> None:
    ward = await make_container("ward-1")
    for name in ("patient-1", "patient-2", "patient-3", "patient-4", "patient-5"):
        await make_folder(ward, name)
    await Folder.filter(name="patient-1").update(
        patient_record_number="DUP-1", patient_record_key="dup-1"
    )
    await Folder.filter(name="patient-4").update(
        patient_record_number="KEEP-4", patient_record_key="keep-4"
    )
    csv_file = tmp_path / "patients.csv"
    csv_file.write_text(
        HEADER
        + "ward-1,patient-2,Ann Smith,,dup-1\n"  # patient-1 holds it
        + "ward-1,patient-3,Bob Jones,,NEW-3\n"
        + "ward-1,patient-4,Cy Twin,,\n"  # keeps KEEP-4
        + "ward-1,patient-5,Di Lee,,new-3 \n",  # as line 3's
        encoding="utf-8",
    )
    before = await numbers()
    code, out, err = await in_process(csv_file)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "line 2: the record number is already in another folder: ward-1 / patient-1",
        "line 5: the record number is also on line 3",
        "Nothing was changed: 2 bad row(s). Fix them and run again.",
    ]
    assert await numbers() == before
    assert await audit_entries("patient_update") == []
    # A row taking the number of a folder another row names and leaves alone.
    csv_file.write_text(HEADER + "ward-1,patient-4,,,\nward-1,patient-3,,,KEEP-4\n")
    code, _, err = await in_process(csv_file)
    assert (code, err.splitlines()[0]) == (1, "line 3: the record number is also on line 2")
    # Two folders trading their numbers in one file is no clash.
    csv_file.write_text(HEADER + "ward-1,patient-1,,,KEEP-4\nward-1,patient-4,,,DUP-1\n")
    code, out, err = await in_process(csv_file)
    assert (code, err) == (0, ""), err
    assert (await numbers())["patient-1"] == "KEEP-4"
    assert (await numbers())["patient-4"] == "DUP-1"
    keys = {f.name: f.patient_record_key for f in await Folder.all()}
    assert (keys["patient-1"], keys["patient-4"]) == ("keep-4", "dup-1")


async def test_duplicates_from_before_are_listed_and_their_saves_refused(
    client: Client, settings: Settings
) -> None:
    """As migration 0032 leaves them: the first holder keyed, the later ones not."""
    ward = await make_container("ward-1")
    for name in ("patient-1", "patient-2", "patient-3"):
        await make_folder(ward, name)
    await Folder.filter(name="patient-1").update(
        patient_record_number="DUP-1", patient_record_key="dup-1"
    )
    await Folder.filter(name="patient-2").update(patient_record_number="dup-1")
    pairs = await shared_numbers()
    assert [(f.folder, h.container, h.folder) for f, h in pairs] == [
        ("patient-2", "ward-1", "patient-1")
    ]
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.put(url("patient-2"), json=patient("dup-1"), headers=admin.headers)
    assert await error_message(response, 409) == ADMIN_SAYS
    # patient-1 holds the number's key: its patient's other details may change (refused before).
    for name, number in (("Ann Smyth", "DUP-1"), ("Ann Smith", " dup-1")):
        response = await client.put(
            url("patient-1"), json=patient(number, name), headers=admin.headers
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
    # patient-2 does not: changing only its patient's name is still refused, as documented.
    response = await client.put(
        url("patient-2"), json=patient("dup-1", "Bo Brown"), headers=admin.headers
    )
    assert await error_message(response, 409) == ADMIN_SAYS
    assert await numbers() == {"patient-1": "dup-1", "patient-2": "dup-1", "patient-3": None}
    assert {f.name: f.patient_record_key for f in await Folder.all()}["patient-1"] == "dup-1"
    # patient-1 gives it up; a third folder still may not take it while patient-2 has it.
    response = await client.put(url("patient-1"), json=patient("OTHER"), headers=admin.headers)
    assert response.status_code == 200
    response = await client.put(url("patient-3"), json=patient("DUP-1"), headers=admin.headers)
    assert await error_message(response, 409) == ADMIN_SAYS.replace("patient-1", "patient-2")
    # patient-2 saved now takes the key: nothing left to list.
    response = await client.put(url("patient-2"), json=patient("dup-1"), headers=admin.headers)
    assert response.status_code == 200
    assert await shared_numbers() == []


async def test_the_import_lets_a_number_holder_change_its_patient(
    app: Quart, tmp_path: Path
) -> None:
    """As migration 0032 leaves duplicates: the keyed folder's rows are applied, the later
    (unkeyed) folder's refused until its number changes, whichever line comes first."""
    ward = await make_container("ward-1")
    for name in ("patient-1", "patient-2"):
        await make_folder(ward, name)
    await Folder.filter(name="patient-1").update(
        patient_record_number="DUP-1", patient_record_key="dup-1"
    )
    await Folder.filter(name="patient-2").update(patient_record_number="dup-1")
    csv_file = tmp_path / "patients.csv"
    csv_file.write_text(HEADER + "ward-1,patient-2,Bo Brown,,\nward-1,patient-1,Ann Smyth,,\n")
    code, out, err = await in_process(csv_file)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "line 2: the record number is also on line 3",
        "Nothing was changed: 1 bad row(s). Fix them and run again.",
    ]
    csv_file.write_text(HEADER + "ward-1,patient-2,Bo Brown,,\n")
    code, out, err = await in_process(csv_file)
    assert (code, err.splitlines()[0]) == (
        1,
        "line 2: the record number is already in another folder: ward-1 / patient-1",
    )
    csv_file.write_text(HEADER + "ward-1,patient-1,Ann Smyth,,dup-1\n")
    code, out, err = await in_process(csv_file)
    assert (code, err) == (0, ""), err
    changed = {f.name: (f.patient_name, f.patient_record_key) for f in await Folder.all()}
    assert changed == {"patient-1": ("Ann Smyth", "dup-1"), "patient-2": (None, None)}
    assert [e.folder_name for e in await audit_entries("patient_update")] == ["patient-1"]
    # Once patient-2's number changes, its patient may change too.
    csv_file.write_text(HEADER + "ward-1,patient-2,Bo Brown,,DUP-2\n")
    code, out, err = await in_process(csv_file)
    assert (code, err) == (0, ""), err


MIGRATE = """
import asyncio, sys
from tortoise import Tortoise
from tortoise.migrations.api.migrate import migrate
from bff.db import tortoise_config

async def main():
    try:
        await migrate(config=tortoise_config(sys.argv[1]), target=sys.argv[2])
    finally:
        await Tortoise.close_connections()

asyncio.run(main())
"""


async def migrated(database_url: str, target: str) -> str:
    """Migrate a database up to target in a process of its own; what it logged."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", MIGRATE, database_url, f"bff.{target}",
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, err.decode()
    return out.decode() + err.decode()


async def write(database_url: str, *statements: str) -> None:
    if database_url.startswith("sqlite://"):
        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite://"))) as db:
            for statement in statements:
                db.execute(statement)
            db.commit()
        return
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def fresh_database(database_url: str, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of the run's kind."""
    if database_url.startswith("sqlite://"):
        yield f"sqlite://{tmp_path}/fresh.sqlite3"
    else:
        async with throwaway_postgres("bff_migration") as url:
            yield url


async def test_migration_0032_keeps_existing_duplicates(database_url: str, tmp_path: Path) -> None:
    async with fresh_database(database_url, tmp_path) as fresh:
        await migrated(fresh, "0031_history_scan_attempts")
        folder = (
            "INSERT INTO folders (id, container_id, name, sort_prefix, sort_number, created_at, "
            "patient_record_number, patient_search) VALUES ({}, 1, 'patient-{}', 'patient-', {}, "
            "'2026-01-01 00:00:00+00:00', {}, '')"
        )
        given = {1: "'DUP-1'", 2: "' dup-1'", 3: "'MRN-3'", 4: "NULL", 5: "'Dup-1'", 6: "'mrn-3'"}
        await write(
            fresh,
            "INSERT INTO containers (id, name, sort_prefix, sort_number, created_at) "
            "VALUES (1, 'ward-1', 'ward-', 1, '2026-01-01 00:00:00+00:00')",
            *(folder.format(n, n, n, number) for n, number in given.items()),
        )
        logged = await migrated(fresh, "0032_record_keys")
        assert "3 folder(s) share a record number with another folder (folder ids 2, 5, 6)" in (
            logged
        )
        rows = await query_database(
            fresh, "SELECT id, patient_record_number, patient_record_key FROM folders ORDER BY id"
        )
        assert [tuple(r) for r in rows] == [
            (1, "DUP-1", "dup-1"),
            (2, " dup-1", None),  # kept, listed by `folders duplicates`
            (3, "MRN-3", "mrn-3"),
            (4, None, None),
            (5, "Dup-1", None),
            (6, "mrn-3", None),
        ]
        with pytest.raises(Exception, match=r"(?i)unique"):
            await write(fresh, "UPDATE folders SET patient_record_key = 'dup-1' WHERE id = 3")
