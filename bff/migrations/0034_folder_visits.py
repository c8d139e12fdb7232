"""Files added since a person's last visit are marked new (issue 50, item 7): when each member
of staff last opened each folder's files, one row per user and folder, gone with either."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0033_page_words")]

    initial = False

    operations = [
        ops.CreateModel(
            name="FolderVisit",
            fields=[
                (
                    "id",
                    fields.IntField(generated=True, primary_key=True, unique=True, db_index=True),
                ),
                (
                    "user",
                    fields.ForeignKeyField(
                        "bff.User",
                        source_field="user_id",
                        db_constraint=True,
                        to_field="id",
                        related_name="folder_visits",
                        on_delete=OnDelete.CASCADE,
                    ),
                ),
                (
                    "folder",
                    fields.ForeignKeyField(
                        "bff.Folder",
                        source_field="folder_id",
                        db_constraint=True,
                        to_field="id",
                        related_name="visits",
                        on_delete=OnDelete.CASCADE,
                    ),
                ),
                ("visited_at", fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={
                "table": "folder_visits",
                "app": "bff",
                "unique_together": (("user", "folder"),),
                "pk_attr": "id",
                "table_description": "When a member of staff last opened a folder's files",
            },
            bases=["Model"],
        ),
    ]
