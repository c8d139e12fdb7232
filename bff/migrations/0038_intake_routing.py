"""The intake's routing (issue 51): each item's routing state (pending until one process has
read its barcodes, planned, filed or suggested it; claimed by one process until a time, so a
process that dies leaves it to be claimed again; how many claims it took), what the routing
found a person should know (problems), and for a part split from a batch the cover sheet
routing it (route)."""

import functools
from json import dumps, loads

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


def _json() -> fields.JSONField:  # type: ignore[type-arg]
    return fields.JSONField(
        null=True, encoder=functools.partial(dumps, separators=(",", ":")), decoder=loads
    )


class Migration(migrations.Migration):
    dependencies = [("bff", "0037_intake")]

    initial = False

    operations = [
        ops.AddField(
            model_name="IntakeItem",
            name="routing",
            field=fields.CharField(default="pending", db_default="pending", max_length=16),
        ),
        ops.AddField(
            model_name="IntakeItem",
            name="routing_holder",
            field=fields.CharField(default="", db_default="", max_length=255),
        ),
        ops.AddField(
            model_name="IntakeItem", name="routing_until", field=fields.DatetimeField(null=True)
        ),
        ops.AddField(
            model_name="IntakeItem",
            name="routing_attempts",
            field=fields.IntField(default=0, db_default=0),
        ),
        ops.AddField(model_name="IntakeItem", name="route", field=_json()),
        ops.AddField(model_name="IntakeItem", name="problems", field=_json()),
    ]
