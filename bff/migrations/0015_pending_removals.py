from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0010_step_up')]

    initial = False

    operations = [
        ops.CreateModel(
            name='PendingRemoval',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='pending_removals', on_delete=OnDelete.CASCADE)),
                ('path', fields.CharField(max_length=1024)),
                ('created_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'pending_removals', 'app': 'bff', 'pk_attr': 'id', 'table_description': "An object a committed change left to remove (a deleted file's old place, a restored version's or trash entry's), recorded in that change's transaction: `storage reindex` never indexes it again, and the upload sweep removes it if the process died first."},
            bases=['Model'],
        ),
    ]
