"""Word boxes (issue 50): each page's words with their boxes, for the viewer's text layer,
highlights and find, kept by the text job for the file's current content."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0032_record_keys")]

    initial = False

    operations = [
        ops.CreateModel(
            name="PageWords",
            fields=[
                (
                    "id",
                    fields.IntField(generated=True, primary_key=True, unique=True, db_index=True),
                ),
                (
                    "file",
                    fields.ForeignKeyField(
                        "bff.StoredFile",
                        source_field="file_id",
                        db_constraint=True,
                        to_field="id",
                        related_name="page_words",
                        on_delete=OnDelete.CASCADE,
                    ),
                ),
                ("version_id", fields.CharField(max_length=40)),
                ("page", fields.IntField()),
                ("words", fields.TextField()),
            ],
            options={
                "table": "page_words",
                "app": "bff",
                "unique_together": (("file", "version_id", "page"),),
                "pk_attr": "id",
                "table_description": "A page's words with their boxes (page 1 for an image), "
                "from the content whose version is `version_id`.",
            },
            bases=["Model"],
        ),
    ]
