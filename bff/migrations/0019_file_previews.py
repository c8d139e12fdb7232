"""Thumbnails (issue 33): each file's current thumbnail, or why it has none."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('bff', '0018_file_jobs')]

    initial = False

    operations = [
        ops.CreateModel(
            name='FilePreview',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('file', fields.OneToOneField('bff.StoredFile', source_field='file_id', db_constraint=True, to_field='id', related_name='preview', on_delete=OnDelete.CASCADE)),
                ('version_id', fields.CharField(max_length=40)),
                ('ready', fields.BooleanField()),
                ('reason', fields.CharField(default='', max_length=255)),
                ('page_count', fields.IntField(null=True)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'file_previews', 'app': 'bff', 'pk_attr': 'id', 'table_description': "The thumbnail of a file's content whose version is `version_id`, or why there is none."},
            bases=['Model'],
        ),
    ]
