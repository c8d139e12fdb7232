"""Full-text search (issue 32): the text extracted from each file, page by page."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('bff', '0015_pending_removals')]

    initial = False

    operations = [
        ops.CreateModel(
            name='SearchText',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('file', fields.ForeignKeyField('bff.StoredFile', source_field='file_id', db_constraint=True, to_field='id', related_name='search_texts', on_delete=OnDelete.CASCADE)),
                ('version_id', fields.CharField(max_length=40)),
                ('page', fields.IntField()),
                ('text', fields.TextField()),
            ],
            options={'table': 'search_texts', 'app': 'bff', 'unique_together': (('file', 'page'),), 'pk_attr': 'id', 'table_description': "One page of a file's text (page 1 for a file without pages), from the content whose version is `version_id`."},
            bases=['Model'],
        ),
    ]
