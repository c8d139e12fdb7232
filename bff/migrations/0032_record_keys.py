"""Record numbers unique (issue 50): each folder's record number as compared (trimmed, lower
case: bff/patients/rules.py `record_key`) in a column with a unique index, so that no two
folders hold one, whatever saves at once.

A database may already hold duplicates (two folders were given `DUP-1`): the migration never
fails for them. Folders are filled in id order; the first holder of a number keeps its key, the
later ones keep their record number with no key, and the migration logs how many (ids only, no
patient data). `python -m bff folders duplicates` lists them with the folder that holds each
number; saving one (the form, an import row) is refused until its number is changed, while the
folder holding the key saves as any other (bff/patients/service.py `other_holders`)."""

import logging
from typing import Any

from tortoise import fields, migrations
from tortoise.migrations import operations as ops

from bff.db import dialect

LOG = logging.getLogger("bff.migrations")


def _key(number: str) -> str:
    # rules.record_key as it was written with this migration (record numbers are ASCII).
    return number.strip().lower()


async def _fill_keys(apps: Any, schema_editor: Any) -> None:
    conn = schema_editor.client
    rows = await conn.execute_query_dict(
        "SELECT id, patient_record_number FROM folders "
        "WHERE patient_record_number IS NOT NULL ORDER BY id"
    )
    taken: set[str] = set()
    unkeyed: list[int] = []
    for row in rows:
        key = _key(str(row["patient_record_number"]))
        if not key:
            continue
        if key in taken:
            unkeyed.append(int(row["id"]))
            continue
        taken.add(key)
        await conn.execute_query(
            "UPDATE folders SET patient_record_key = $1 WHERE id = $2"
            if dialect(conn) == "postgres"
            else "UPDATE folders SET patient_record_key = ? WHERE id = ?",
            [key, int(row["id"])],
        )
    if unkeyed:
        LOG.warning(
            "%d folder(s) share a record number with another folder (folder ids %s): "
            "`python -m bff folders duplicates` lists them; change their record numbers",
            len(unkeyed),
            ", ".join(map(str, unkeyed[:50])) + (" ..." if len(unkeyed) > 50 else ""),
        )


class Migration(migrations.Migration):
    dependencies = [("bff", "0031_history_scan_attempts")]

    initial = False

    operations = [
        ops.AddField(
            model_name="Folder",
            name="patient_record_key",
            field=fields.CharField(null=True, unique=True, max_length=64),
        ),
        ops.RunPython(_fill_keys),
    ]
