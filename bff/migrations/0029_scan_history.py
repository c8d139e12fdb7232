"""The malware scan's state kept with a file's earlier versions and trash entries (issue 49): a
held content (not scanned yet) stays the admins' only when a newer upload makes it an earlier
version or it is deleted to the trash, and a restore brings its state back. Rows from before
are as every earlier content was let in: unscanned (the periodic rescan takes it from there
once restored)."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


def _columns(model: str) -> list[ops.AddField]:
    return [
        ops.AddField(
            model_name=model,
            name="scan_state",
            field=fields.CharField(max_length=16, default="unscanned", db_default="unscanned"),
        ),
        ops.AddField(model_name=model, name="scanned_at", field=fields.DatetimeField(null=True)),
    ]


class Migration(migrations.Migration):
    dependencies = [("bff", "0028_content_checks")]

    initial = False

    operations = [*_columns("FileVersion"), *_columns("TrashedFile")]
