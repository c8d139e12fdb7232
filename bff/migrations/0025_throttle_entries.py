"""The brute-force guards count in the database (issue 48, item 2): one row per attempt and
key of a durable throttle (bff/throttle.py), so every process of every instance shares the
count with or without Redis."""

from tortoise import fields, migrations
from tortoise.indexes import Index
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0024_oidc_linking")]

    initial = False

    operations = [
        ops.CreateModel(
            name="ThrottleEntry",
            fields=[
                (
                    "id",
                    fields.BigIntField(
                        generated=True, primary_key=True, unique=True, db_index=True
                    ),
                ),
                ("key_hash", fields.CharField(max_length=32)),
                ("member", fields.CharField(max_length=16)),
                ("expires", fields.FloatField(db_index=True)),
            ],
            options={
                "table": "throttle_entries",
                "app": "bff",
                "indexes": [Index(fields=["key_hash", "expires"])],
                "pk_attr": "id",
                "table_description": "One attempt counted by a durable throttle under one key, until it leaves the window",
            },
            bases=["Model"],
        ),
    ]
