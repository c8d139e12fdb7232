from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('bff', '0005_pending_uploads')]

    initial = False

    operations = [
        ops.AddField(
            model_name='StoredFile',
            name='version_id',
            field=fields.CharField(default='', db_default='', max_length=40),
        ),
        ops.AddField(
            model_name='StoredFile',
            name='uploaded_by_name',
            field=fields.CharField(default='', db_default='', max_length=255),
        ),
        ops.AddField(
            model_name='StoredFile',
            name='uploaded_by_role',
            field=fields.CharField(default='', db_default='', max_length=32),
        ),
        ops.CreateModel(
            name='FileVersion',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='file_versions', on_delete=OnDelete.CASCADE)),
                ('name', fields.CharField(max_length=255)),
                ('version_id', fields.CharField(max_length=40)),
                ('trash_id', fields.CharField(null=True, max_length=40)),
                ('content_type', fields.CharField(max_length=255)),
                ('size', fields.BigIntField()),
                ('last_modified', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('uploaded_by_name', fields.CharField(default='', max_length=255)),
                ('uploaded_by_role', fields.CharField(default='', max_length=32)),
                ('original_rtf_name', fields.CharField(null=True, max_length=255)),
                ('replaced_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'file_versions', 'app': 'bff', 'unique_together': (('folder', 'version_id'),), 'indexes': [Index(fields=['folder_id', 'name'])], 'pk_attr': 'id', 'table_description': 'An earlier content of a file, kept at `.bff-versions/{name}/{version_id}` (or, while the'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='TrashedFile',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='trashed_files', on_delete=OnDelete.CASCADE)),
                ('name', fields.CharField(max_length=255)),
                ('trash_id', fields.CharField(unique=True, max_length=40)),
                ('content_type', fields.CharField(max_length=255)),
                ('size', fields.BigIntField()),
                ('last_modified', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('is_profile_image', fields.BooleanField(default=False)),
                ('original_rtf_name', fields.CharField(null=True, max_length=255)),
                ('version_id', fields.CharField(default='', max_length=40)),
                ('uploaded_by_name', fields.CharField(default='', max_length=255)),
                ('uploaded_by_role', fields.CharField(default='', max_length=32)),
                ('deleted_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
                ('deleted_by_name', fields.CharField(default='', max_length=255)),
                ('deleted_by_role', fields.CharField(default='', max_length=32)),
            ],
            options={'table': 'trashed_files', 'app': 'bff', 'indexes': [Index(fields=['folder_id', 'name'])], 'pk_attr': 'id', 'table_description': 'A file an admin deleted, kept under `.bff-trash/{trash_id}/` until restored or purged.'},
            bases=['Model'],
        ),
    ]
