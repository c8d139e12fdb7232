"""When a rescan of a file last failed to reach a verdict (issue 49, bff/scan/rescan.py): a
file clamd gives up on (a timeout, its size limit, an error) or whose object is missing is
tried again after the other files due, instead of first in every run. Rows from before have
none."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0029_scan_history")]

    initial = False

    operations = [
        ops.AddField(
            model_name="StoredFile", name="scan_tried_at", field=fields.DatetimeField(null=True)
        )
    ]
