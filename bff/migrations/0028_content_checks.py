"""What the content checks found in a file's content (issue 49, bff/files/content.py): a PDF's
active content named ("" for none) and whether it can be displayed (a damaged PDF kept by
BFF_DAMAGED_PDF=keep cannot), on the file's row and kept with its versions and trash entries.
Rows from before are as every earlier file was let in: nothing found, displayable."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


def _columns(model: str) -> list[ops.AddField]:
    return [
        ops.AddField(
            model_name=model,
            name="active_content",
            field=fields.TextField(default="", db_default=""),
        ),
        ops.AddField(
            model_name=model,
            name="displayable",
            field=fields.BooleanField(default=True, db_default=True),
        ),
    ]


class Migration(migrations.Migration):
    dependencies = [("bff", "0027_scanning")]

    initial = False

    operations = [
        *_columns("StoredFile"),
        *_columns("FileVersion"),
        *_columns("TrashedFile"),
    ]
