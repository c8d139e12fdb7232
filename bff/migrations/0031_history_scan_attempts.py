"""When a rescan of an earlier version or a trash entry last failed to reach a verdict (issue
49, bff/scan/rescan.py scans those held or never scanned): as a file's, such content is tried
again after everything else due, instead of first in every run. Rows from before have none."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0030_scan_attempts")]

    initial = False

    operations = [
        ops.AddField(model_name=model, name="scan_tried_at", field=fields.DatetimeField(null=True))
        for model in ("FileVersion", "TrashedFile")
    ]
