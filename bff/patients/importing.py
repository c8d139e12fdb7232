"""`folders import`: patients' demographics from a CSV file (a provider moving from another
system), checked whole before anything is written.

Columns (a header row, any order, case and '_' or '-' for spaces ignored; other columns are
ignored): container, folder, name, date of birth (YYYY-MM-DD), record number. A row updates the
existing folder it names; an empty cell leaves that field as it is. Folders are not created
here: they come into being in storage (created by an admin, or indexed by `storage reindex`), so
a row naming a folder that does not exist is a bad row. A record number is one folder's only
(bff/patients/service.py): a row giving its folder a record number another folder holds (or
another row gives its folder) is a bad row naming that folder ("container / folder") or line.
Any bad row and nothing is written; a file that is already in effect changes nothing (and says
so).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from tortoise.exceptions import IntegrityError

from bff.containers import repository
from bff.db import transaction
from bff.errors import ApiError
from bff.patients import rules
from bff.patients.rules import Demographics
from bff.patients.service import keeping_keys, other_holders, save_patient
from bff.users.bootstrap import SYSTEM

if TYPE_CHECKING:
    from _csv import Reader

COLUMNS = ("container", "folder", "name", "date of birth", "record number")
MAX_ROWS = 100_000


class ImportFileError(Exception):
    """The file cannot be read as an import at all (its header, its encoding, its size)."""


@dataclass(frozen=True)
class Row:
    """One row of the file: where it is, which folder, and what it gives (None: left as is)."""

    line: int
    container: str
    folder: str
    name: str | None
    birth_date: date | None
    record_number: str | None


@dataclass
class Plan:
    """What an import would do: the folders it changes (with the fields), those already as the
    file says, and the bad rows (line, message)."""

    changes: list[tuple[Row, int, Demographics, list[str]]] = field(default_factory=list)
    unchanged: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)


def _column(title: str) -> str:
    return re.sub(r"[\s_-]+", " ", title.strip().lower())


def read_rows(lines: Iterable[str]) -> tuple[list[Row], list[tuple[int, str]]]:
    """The rows of a CSV text and the bad ones (line number, why); ImportFileError when the
    header lacks a column, the file is too long, or a line cannot be read as CSV at all."""
    reader = csv.reader(lines)
    try:
        return _read_rows(reader)
    except csv.Error as exc:
        # The csv module stops at the first line it cannot read (a cell over its field limit,
        # 131,072 characters): the rest of the file cannot be told apart, so it is refused whole.
        line = reader.line_num
        raise ImportFileError(f"Line {line} is not readable as CSV: {_why(exc)}.") from None


def _why(exc: csv.Error) -> str:
    """What the csv module found, in words an admin can act on."""
    found = re.fullmatch(r"field larger than field limit \((\d+)\)", str(exc))
    if found:
        return f"a cell is longer than {int(found.group(1)):,} characters (a quote left open?)"
    return str(exc)


def _read_rows(reader: Reader) -> tuple[list[Row], list[tuple[int, str]]]:
    try:
        header = next(reader)
    except StopIteration:
        raise ImportFileError("The file is empty: it needs a header row.") from None
    titles = [_column(title) for title in header]
    missing = [c for c in COLUMNS if c not in titles]
    if missing:
        raise ImportFileError(
            f"The header row lacks the column(s): {', '.join(missing)} "
            f"(expected: {', '.join(COLUMNS)})."
        )
    at = {c: titles.index(c) for c in COLUMNS}
    rows: list[Row] = []
    problems: list[tuple[int, str]] = []
    for cells in reader:
        line = reader.line_num
        if len(rows) + len(problems) >= MAX_ROWS:
            raise ImportFileError(f"The file has more than {MAX_ROWS} rows: split it.")
        if not any(cell.strip() for cell in cells):
            continue  # a blank line
        if len(cells) < len(header):
            problems.append((line, f"{len(cells)} cells where the header has {len(header)}"))
            continue
        container, folder = cells[at["container"]].strip(), cells[at["folder"]].strip()
        if not container or not folder:
            problems.append((line, "the container and the folder are required"))
            continue
        try:
            rows.append(
                Row(
                    line,
                    container,
                    folder,
                    rules.patient_name(cells[at["name"]]),
                    rules.birth_date(cells[at["date of birth"]]),
                    rules.record_number(cells[at["record number"]]),
                )
            )
        except ApiError as exc:
            problems.append((line, exc.message))
    return rows, problems


async def plan_import(rows: list[Row], problems: list[tuple[int, str]]) -> Plan:
    """What importing rows would change, with every bad row (an unknown folder, a folder
    named twice) added to problems."""
    plan = Plan(problems=list(problems))
    first_line: dict[tuple[str, str], int] = {}
    by_container: dict[str, list[Row]] = {}
    for row in rows:
        key = (row.container, row.folder)
        if key in first_line:
            plan.problems.append((row.line, f"the folder is also on line {first_line[key]}"))
            continue
        first_line[key] = row.line
        by_container.setdefault(row.container, []).append(row)
    for container, named in by_container.items():
        found = await repository.patients_named(container, [row.folder for row in named])
        for row in named:
            if row.folder not in found:
                plan.problems.append(
                    (row.line, f"no folder '{row.folder}' in container '{row.container}'")
                )
                continue
            folder_id, before = found[row.folder]
            after = Demographics(
                before.name if row.name is None else row.name,
                before.birth_date if row.birth_date is None else row.birth_date,
                before.record_number if row.record_number is None else row.record_number,
            )
            changed = rules.changed_fields(before, after)
            if changed:
                plan.changes.append((row, folder_id, after, changed))
            else:
                plan.unchanged += 1
    plan.problems.extend(await _taken_numbers(plan, first_line))
    plan.problems.sort()
    return plan


async def _taken_numbers(
    plan: Plan, first_line: dict[tuple[str, str], int]
) -> list[tuple[int, str]]:
    """The changed rows whose folder would share its record number (rules.record_key) with
    another folder: one another row names (either changed or left as it is), or one the file
    leaves alone. Folders the file changes may trade their numbers. A folder keeping the key
    of its number is never the bad row: another folder sharing that number (unkeyed since
    migration 0032) is, whichever line comes first."""
    wanted = {
        folder_id: key
        for _, folder_id, after, _ in plan.changes
        if (key := rules.record_key(after.record_number)) is not None
    }
    holders = await repository.record_holders(set(wanted.values()))
    keeping = keeping_keys(wanted, holders)
    lines = {folder_id: row.line for row, folder_id, _, _ in plan.changes}
    problems: list[tuple[int, str]] = []
    first_with: dict[str, int] = {}
    in_order = sorted(plan.changes, key=lambda change: (change[1] not in keeping, change[0].line))
    for row, folder_id, _, _ in in_order:
        key = wanted.get(folder_id)
        if key is None:
            continue
        if key in first_with:
            problems.append((row.line, f"the record number is also on line {first_with[key]}"))
        else:
            first_with[key] = row.line
    for folder_id, holder in (await other_holders(wanted, holders=holders)).items():
        line = lines[folder_id]
        other = first_line.get((holder.container, holder.folder))
        if other is not None:
            # A folder on another line that keeps its number.
            problems.append((line, f"the record number is also on line {other}"))
        else:
            problems.append(
                (
                    line,
                    f"the record number is already in another folder: "
                    f"{holder.container} / {holder.folder}",
                )
            )
    return problems


async def apply_import(plan: Plan) -> int:
    """Write a plan with no problems in one transaction (each folder audited as the system's
    `patient_update`, announced live); the number of folders changed."""
    if plan.problems:
        raise ValueError("a plan with bad rows is never applied")
    changed = 0
    async with transaction() as conn:
        # Checked whole in the plan; a save since then that took one of the numbers is
        # refused by the unique key (IntegrityError: the transaction rolls back).
        renumbered = [
            folder_id for _, folder_id, _, fields_ in plan.changes if "record number" in fields_
        ]
        await repository.clear_record_keys(conn, renumbered)
        for row, folder_id, after, _ in plan.changes:
            where = (folder_id, row.container, row.folder)
            if await save_patient(conn, where, after, SYSTEM, "imported", unique_checked=True):
                changed += 1
    return changed


def _say_plan(plan: Plan, dry_run: bool, say: Callable[[str], None]) -> None:
    verb = "would change" if dry_run else "changes"
    for row, _, _, fields_ in plan.changes:
        say(f"{row.container}/{row.folder} (line {row.line}): {verb} {', '.join(fields_)}")


async def import_text(
    text: str,
    *,
    dry_run: bool,
    say: Callable[[str], None],
    warn: Callable[[str], None],
    again: bool = True,
) -> int:
    """`folders import`: check the CSV text whole, then print what would change (dry_run) or
    apply it; the command's exit status (0 done or nothing to do, 1 bad rows, 2 an unreadable
    file). Names folders and fields, never a patient's name or date."""
    try:
        rows, problems = read_rows(text.splitlines(keepends=True))
    except ImportFileError as exc:
        warn(str(exc))
        return 2
    plan = await plan_import(rows, problems)
    if plan.problems:
        for line, problem in plan.problems:
            warn(f"line {line}: {problem}")
        warn(f"Nothing was changed: {len(plan.problems)} bad row(s). Fix them and run again.")
        return 1
    _say_plan(plan, dry_run, say)
    if not plan.changes:
        say(f"Nothing to change: the {plan.unchanged} folder(s) are already up to date.")
    elif dry_run:
        say(
            f"Dry run: {len(plan.changes)} folder(s) would change, {plan.unchanged} already "
            "up to date. Nothing was changed."
        )
    else:
        try:
            changed = await apply_import(plan)
        except IntegrityError:
            # Another save took a record number the file gives since it was checked: nothing
            # was written; the check again names the rows.
            if not again:
                raise
            return await import_text(text, dry_run=dry_run, say=say, warn=warn, again=False)
        say(f"Updated {changed} folder(s); {plan.unchanged} already up to date.")
    return 0
