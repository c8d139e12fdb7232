"""The intake (issue 51): documents arriving from a scan folder, a mailbox or an upload batch,
kept as items until a person files them to a patient's folder or deletes them (one row each,
its content's sha256 unique: never taken twice), and the per-user intake permission an admin
grants (users.intake; admins always have it)."""

import functools
from json import dumps, loads

from tortoise import fields, migrations
from tortoise.migrations import operations as ops

from bff.intake.models import Source, Status


class Migration(migrations.Migration):
    dependencies = [("bff", "0036_audit_folder_index")]

    initial = False

    operations = [
        ops.AddField(
            model_name="User",
            name="intake",
            field=fields.BooleanField(default=False, db_default=False),
        ),
        ops.CreateModel(
            name="IntakeItem",
            fields=[
                (
                    "id",
                    fields.IntField(generated=True, primary_key=True, unique=True, db_index=True),
                ),
                (
                    "source",
                    fields.CharEnumField(
                        description="SCANNER: scanner\nMAILBOX: mailbox\nUPLOAD: upload",
                        enum_type=Source,
                        max_length=16,
                    ),
                ),
                ("file_name", fields.CharField(max_length=255)),
                ("sender", fields.CharField(default="", max_length=320)),
                ("subject", fields.CharField(default="", max_length=998)),
                ("message_id", fields.CharField(default="", max_length=998)),
                ("sha256", fields.CharField(unique=True, max_length=64)),
                ("object_id", fields.CharField(unique=True, max_length=64)),
                ("content_type", fields.CharField(max_length=255)),
                ("size", fields.BigIntField()),
                ("page_count", fields.IntField(null=True)),
                (
                    "status",
                    fields.CharEnumField(
                        default=Status.NEW,
                        db_index=True,
                        description="NEW: new\nFILED: filed\nDELETED: deleted",
                        enum_type=Status,
                        max_length=16,
                    ),
                ),
                (
                    "suggestion",
                    fields.JSONField(
                        null=True,
                        encoder=functools.partial(dumps, separators=(",", ":")),
                        decoder=loads,
                    ),
                ),
                ("received_at", fields.DatetimeField(db_index=True)),
                ("received_by_id", fields.IntField(null=True)),
                ("received_by_name", fields.CharField(default="", max_length=255)),
                ("filed_folder_id", fields.IntField(null=True)),
                ("filed_container", fields.CharField(default="", max_length=255)),
                ("filed_folder", fields.CharField(default="", max_length=255)),
                ("filed_name", fields.CharField(default="", max_length=255)),
                ("filed_by_id", fields.IntField(null=True)),
                ("filed_by_name", fields.CharField(default="", max_length=255)),
                ("filed_at", fields.DatetimeField(null=True)),
                ("deleted_by_id", fields.IntField(null=True)),
                ("deleted_by_name", fields.CharField(default="", max_length=255)),
                ("deleted_at", fields.DatetimeField(null=True)),
                ("deleted_reason", fields.CharField(default="", max_length=500)),
            ],
            options={
                "table": "intake_items",
                "app": "bff",
                "pk_attr": "id",
                "table_description": "Documents that arrived from outside, waiting to be filed",
            },
            bases=["Model"],
        ),
    ]
