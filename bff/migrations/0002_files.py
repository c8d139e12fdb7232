from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('bff', '0001_initial')]

    initial = False

    operations = [
        ops.CreateModel(
            name='StoredFile',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='files', on_delete=OnDelete.CASCADE)),
                ('name', fields.CharField(max_length=255)),
                ('content_type', fields.CharField(max_length=255)),
                ('size', fields.BigIntField()),
                ('last_modified', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('extension', fields.CharField(max_length=32)),
                ('is_profile_image', fields.BooleanField(default=False)),
                ('converted_from_rtf', fields.BooleanField(default=False)),
                ('original_rtf_name', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'files', 'app': 'bff', 'unique_together': (('folder', 'name'),), 'indexes': [Index(fields=['folder_id', 'extension'])], 'pk_attr': 'id', 'table_description': 'One listed file of a patient folder (the bytes live in storage under the same name).'},
            bases=['Model'],
        ),
    ]
