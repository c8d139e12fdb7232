"""Where a file's content came from when not uploaded into its folder (issue 51): a document
the intake filed keeps its source (the scanner, the mailbox and its sender, an upload to the
intake; filed by a cover sheet or by a person; the intake item it was) on the file's row, and
with its versions and trash entries so a restore brings it back. Null: uploaded to the folder,
as every row from before was (or not known)."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


def _column(model: str) -> ops.AddField:
    return ops.AddField(model_name=model, name="source", field=fields.JSONField(null=True))


class Migration(migrations.Migration):
    dependencies = [("bff", "0039_intake_dedupe_new")]

    initial = False

    operations = [_column("StoredFile"), _column("FileVersion"), _column("TrashedFile")]
