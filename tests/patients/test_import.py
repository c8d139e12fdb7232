"""`python -m bff folders import FILE.csv`: a dry run that changes nothing, an import audited
per folder, a second run that changes nothing and says so, and bad rows (line numbers, nothing
half-applied). The import itself runs as a real process on the test database (SQLite or
PostgreSQL); the dry run, the second run and the bad rows call the command's work in this
process (a process spends seconds starting on a loaded machine)."""

from __future__ import annotations

import asyncio
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from quart import Quart

from bff.cli import cli
from bff.containers.models import Folder
from bff.patients import cli as patients_cli
from bff.patients.importing import ImportFileError, import_text, read_rows
from tests.factories import make_container, make_folder
from tests.helpers import audit_entries
from tools.devserver import REPO, local_env

HEADER = "Container,Folder,Name,Date of Birth,Record_Number\n"


async def folders_import(
    database_url: str, run_dir: Path, csv_file: Path, *args: str
) -> tuple[int, str, str]:
    env = local_env(
        run_dir,
        database_url=database_url,
        var_dir=str(run_dir),
        storage_url=f"file://{run_dir}/storage",
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bff", "folders", "import", str(csv_file), *args,
        env=env, cwd=REPO, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def in_process(csv_file: Path, *, dry_run: bool = False) -> tuple[int, str, str]:
    """The command's work (import_text) here, with what it prints on stdout and stderr."""
    out: list[str] = []
    err: list[str] = []
    text = await asyncio.to_thread(csv_file.read_text, encoding="utf-8-sig")
    code = await import_text(text, dry_run=dry_run, say=out.append, warn=err.append)
    return code, "".join(f"{line}\n" for line in out), "".join(f"{line}\n" for line in err)


async def folders_import_command(
    monkeypatch: pytest.MonkeyPatch, csv_file: Path, *args: str
) -> Result:
    """`folders import` as click runs it (its arguments, its echoes, its exit status), its work
    on this test's database and event loop (already open: a second Tortoise in this process
    would replace the tests' own)."""
    loop = asyncio.get_running_loop()

    def on_the_tests_loop(work: Any) -> None:
        sys.exit(asyncio.run_coroutine_threadsafe(work, loop).result())

    monkeypatch.setattr(patients_cli, "run", on_the_tests_loop)
    monkeypatch.setattr(patients_cli, "with_db", lambda settings, work: work())
    command = ["folders", "import", str(csv_file), *args]
    return await asyncio.to_thread(CliRunner().invoke, cli, command, prog_name="python -m bff")


async def patients() -> dict[str, tuple[str | None, date | None, str | None]]:
    rows = await Folder.all().order_by("name")
    return {f.name: (f.patient_name, f.patient_birth_date, f.patient_record_number) for f in rows}


async def test_dry_run_import_and_again(
    app: Quart, database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    ward = await make_container("ward-1")
    for name in ("patient-1", "patient-2", "patient-3"):
        await make_folder(ward, name)
    await Folder.filter(name="patient-3").update(
        patient_name="Kept Name", patient_record_number="OLD-3"
    )
    csv_file = tmp_path / "patients.csv"
    csv_file.write_text(
        "\ufeff" + HEADER  # Excel's byte order mark
        + "ward-1,patient-1,José Müller,1950-03-14,MRN-0042\n"
        + "\n"
        + 'ward-1,patient-2,"Smith, Ann",,\n'
        + "ward-1,patient-3,,1961-01-01,\n",  # empty cells leave what is there
        encoding="utf-8",
    )  # fmt: skip
    before = await patients()

    code, out, err = await in_process(csv_file, dry_run=True)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "ward-1/patient-1 (line 2): would change name, date of birth, record number",
        "ward-1/patient-2 (line 4): would change name",
        "ward-1/patient-3 (line 5): would change date of birth",
        "Dry run: 3 folder(s) would change, 0 already up to date. Nothing was changed.",
    ]
    assert await patients() == before
    assert await audit_entries("patient_update") == []

    code, out, err = await folders_import(database_url, run_dir, csv_file)
    assert (code, err) == (0, ""), err
    assert out.splitlines()[-1] == "Updated 3 folder(s); 0 already up to date."
    assert await patients() == {
        "patient-1": ("José Müller", date(1950, 3, 14), "MRN-0042"),
        "patient-2": ("Smith, Ann", None, None),
        "patient-3": ("Kept Name", date(1961, 1, 1), "OLD-3"),
    }
    entries = await audit_entries("patient_update")
    assert [(e.folder_name, e.name, e.details) for e in entries] == [
        ("patient-1", "system", "imported: name, date of birth, record number"),
        ("patient-2", "system", "imported: name"),
        ("patient-3", "system", "imported: date of birth"),
    ]
    # Searchable at once.
    assert await Folder.filter(patient_search__contains="jose muller").count() == 1

    code, out, err = await in_process(csv_file)
    assert (code, out, err) == (
        0,
        "Nothing to change: the 3 folder(s) are already up to date.\n",
        "",
    )
    assert len(await audit_entries("patient_update")) == 3


async def test_bad_rows_change_nothing(app: Quart, tmp_path: Path) -> None:
    ward = await make_container("ward-1")
    await make_folder(ward, "patient-1")
    await make_folder(ward, "patient-2")
    csv_file = tmp_path / "patients.csv"
    csv_file.write_text(
        HEADER
        + "ward-1,patient-1,Good Row,1950-03-14,MRN-1\n"
        + "ward-1,patient-2,Ann,14/03/1950,\n"
        + "ward-1,patient-9,Nobody,,\n"
        + "ward-9,patient-1,Nowhere,,\n"
        + "ward-1,patient-1,Twice,,\n"
        + "ward-1,patient-2,Ann\u200bSmith,,\n"
        + "ward-1\n",
        encoding="utf-8",
    )
    code, out, err = await in_process(csv_file)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "line 3: A date of birth is a real date written as YYYY-MM-DD.",
        "line 4: no folder 'patient-9' in container 'ward-1'",
        "line 5: no folder 'patient-1' in container 'ward-9'",
        "line 6: the folder is also on line 2",
        "line 7: Invalid patient name: it contains an invisible character (U+200B, zero width "
        "space). Remove it and try again.",
        "line 8: 1 cells where the header has 5",
        "Nothing was changed: 6 bad row(s). Fix them and run again.",
    ]
    assert (await Folder.get(name="patient-1")).patient_name is None  # the good row too
    assert await audit_entries("patient_update") == []


def test_a_header_without_a_column_is_refused_whole() -> None:
    with pytest.raises(ImportFileError, match=r"lacks the column\(s\): date of birth, record"):
        read_rows(["container,folder,name\n", "ward-1,patient-1,Ann\n"])
    with pytest.raises(ImportFileError, match="empty"):
        read_rows([])


async def test_a_cell_over_the_csv_modules_limit_is_refused_with_its_line(
    app: Quart, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One cell of 140,000 characters, over the csv module's field limit (131,072), which
    stops reading the file there: refused whole with the line and why (exit status 2, like an
    unreadable header), not a traceback; nothing changed."""
    ward = await make_container("ward-1")
    await make_folder(ward, "patient-1")
    csv_file = tmp_path / "patients.csv"
    csv_file.write_text(
        HEADER + "ward-1,patient-1,Ann,,\n" + f"ward-1,patient-1,{'x' * 140_000},,\n",
        encoding="utf-8",
    )
    result = await folders_import_command(monkeypatch, csv_file)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Line 3 is not readable as CSV: a cell is longer than 131,072 characters "
        "(a quote left open?).\n"
    )
    assert (await Folder.get(name="patient-1")).patient_name is None


async def test_an_escape_sequence_in_a_cell_is_printed_escaped(
    app: Quart, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell carrying a terminal's control sequences (OSC 0 sets the window title, CSI 2J
    clears the screen, a line break forges a line, U+202E reverses what follows) reaches the
    admin's terminal escaped, in every line that names it; nothing is changed."""
    ward = await make_container("ward-1")
    await make_folder(ward, "patient-1")
    csv_file = tmp_path / "patients.csv"
    cell = "patient-1\x1b]0;pwned\x07\x1b[2J\nUpdated 1 folder(s)\u202e"
    csv_file.write_text(
        HEADER + f'ward-1,"{cell}",Ann,,\n' + "ward-1\x9b31m,patient-1,,,\n",
        encoding="utf-8",
    )
    result = await folders_import_command(monkeypatch, csv_file)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "line 3: no folder 'patient-1\\x1b]0;pwned\\x07\\x1b[2J\\nUpdated 1 folder(s)\\u202e' "
        "in container 'ward-1'",
        "line 4: no folder 'patient-1' in container 'ward-1\\x9b31m'",
        "Nothing was changed: 2 bad row(s). Fix them and run again.",
    ]
    assert (await Folder.get(name="patient-1")).patient_name is None


async def test_the_file_name_is_printed_escaped(
    app: Quart, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    csv_file = tmp_path / "export\x1b]0;pwned\x07.csv"
    csv_file.write_bytes(b"\xff\xfeC\x00")  # UTF-16: not UTF-8
    result = await folders_import_command(monkeypatch, csv_file)
    assert result.exit_code == 2
    assert "\x1b" not in result.output
    assert result.stderr == (
        f"{tmp_path}/export\\x1b]0;pwned\\x07.csv is not UTF-8 text (line 1): save it as "
        "CSV UTF-8 and try again.\n"
    )
