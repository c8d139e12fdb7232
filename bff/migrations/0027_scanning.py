"""Malware scanning (issue 49, bff/scan/): each file's scan state ("unscanned", "clean",
"held") and when it was scanned, and the quarantine: what the scanner found and kept apart
(its bytes under `.bff-quarantine/`). Files stored before are "unscanned", as they were let in."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0026_oidc_link_codes")]

    initial = False

    operations = [
        ops.AddField(
            model_name="StoredFile",
            name="scan_state",
            field=fields.CharField(
                max_length=16, default="unscanned", db_default="unscanned", db_index=True
            ),
        ),
        ops.AddField(
            model_name="StoredFile",
            name="scanned_at",
            field=fields.DatetimeField(null=True),
        ),
        ops.CreateModel(
            name="Quarantined",
            fields=[
                (
                    "id",
                    fields.IntField(generated=True, primary_key=True, unique=True, db_index=True),
                ),
                ("container", fields.CharField(max_length=255)),
                ("folder", fields.CharField(max_length=255)),
                ("name", fields.CharField(max_length=255)),
                ("signature", fields.CharField(max_length=255)),
                ("size", fields.BigIntField()),
                ("uploaded_by_id", fields.IntField(null=True)),
                ("uploaded_by_name", fields.CharField(max_length=255)),
                ("found_at", fields.DatetimeField(db_index=True)),
                ("reason", fields.CharField(max_length=16)),
                ("object_key", fields.TextField()),
            ],
            options={
                "table": "quarantined",
                "app": "bff",
                "pk_attr": "id",
                "table_description": "Content the malware scanner found, kept apart",
            },
            bases=["Model"],
        ),
    ]
