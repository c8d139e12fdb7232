"""Durable background jobs per file version (issue 32: text extraction; previews later)."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.indexes import Index
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('bff', '0017_search_index')]

    initial = False

    operations = [
        ops.CreateModel(
            name='FileJob',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('file', fields.ForeignKeyField('bff.StoredFile', source_field='file_id', db_constraint=True, to_field='id', related_name='jobs', on_delete=OnDelete.CASCADE)),
                ('kind', fields.CharField(max_length=32)),
                ('version_id', fields.CharField(max_length=40)),
                ('state', fields.CharField(max_length=16)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('reason', fields.TextField(null=True)),
                ('claim', fields.CharField(max_length=64, null=True)),
                ('claimed_by', fields.CharField(max_length=255, null=True)),
                ('claimed_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'file_jobs', 'app': 'bff', 'unique_together': (('file', 'kind'),), 'indexes': [Index(fields=['state', 'next_attempt_at'])], 'pk_attr': 'id', 'table_description': "One kind of work on a file's current content, pending, running, done or failed."},
            bases=['Model'],
        ),
    ]
