"""A visit to a folder spans a person's requests within a window of each other (issue 50): a
reload keeps the files added since the visit before marked new. Each row keeps when its visit
was last seen (visited_at), when it began (started_at: a visit lasts VISIT_LONGEST at most) and
when the visit before it ended (since, null: the first visit; rows from before have neither)."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0034_folder_visits")]

    initial = False

    operations = [
        ops.AddField(model_name="FolderVisit", name="since", field=fields.DatetimeField(null=True)),
        ops.AddField(
            model_name="FolderVisit", name="started_at", field=fields.DatetimeField(null=True)
        ),
    ]
