from tortoise import migrations
from tortoise.migrations import operations as ops
from bff.users.models import Role
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    initial = True

    operations = [
        ops.CreateModel(
            name='AuditLog',
            fields=[
                ('id', fields.BigIntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('timestamp', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
                ('user_id', fields.IntField(null=True, db_index=True)),
                ('name', fields.CharField(default='', max_length=100)),
                ('role', fields.CharField(default='', max_length=16)),
                ('operation', fields.CharField(db_index=True, max_length=40)),
                ('container_name', fields.CharField(default='', db_index=True, max_length=63)),
                ('folder_name', fields.CharField(default='', max_length=100)),
                ('blob_name', fields.CharField(default='', max_length=255)),
                ('client_address', fields.CharField(default='', max_length=64)),
                ('details', fields.CharField(default='', max_length=500)),
                ('prev_hash', fields.CharField(max_length=64)),
                ('hash', fields.CharField(unique=True, max_length=64)),
            ],
            options={'table': 'audit_logs', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'One audited action. Never updated or deleted.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Container',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('name', fields.CharField(unique=True, max_length=63)),
                ('sort_prefix', fields.CharField(max_length=63)),
                ('sort_number', fields.BigIntField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'containers', 'app': 'bff', 'indexes': [Index(fields=['sort_prefix', 'sort_number', 'name'])], 'pk_attr': 'id', 'table_description': 'A storage container (one per group), holding patient folders.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Folder',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('container', fields.ForeignKeyField('bff.Container', source_field='container_id', db_constraint=True, to_field='id', related_name='folders', on_delete=OnDelete.CASCADE)),
                ('name', fields.CharField(max_length=100)),
                ('sort_prefix', fields.CharField(max_length=100)),
                ('sort_number', fields.BigIntField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'folders', 'app': 'bff', 'unique_together': (('container', 'name'),), 'indexes': [Index(fields=['container_id', 'sort_prefix', 'sort_number', 'name'])], 'pk_attr': 'id', 'table_description': 'A patient folder inside a container.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='User',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('name', fields.CharField(max_length=100)),
                ('username', fields.CharField(unique=True, max_length=50)),
                ('role', fields.CharEnumField(description='ADMIN: admin\nDOCTOR: doctor\nNURSE: nurse\nASSISTANT: assistant', enum_type=Role, max_length=16)),
                ('password_hash', fields.CharField(max_length=255)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
            ],
            options={'table': 'users', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'A member of staff who signs in.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='ContainerAssignment',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='container_assignments', on_delete=OnDelete.CASCADE)),
                ('container', fields.ForeignKeyField('bff.Container', source_field='container_id', db_constraint=True, to_field='id', related_name='assignments', on_delete=OnDelete.CASCADE)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'container_assignments', 'app': 'bff', 'unique_together': (('user', 'container'),), 'pk_attr': 'id', 'table_description': 'A container assigned to a user.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='FolderAssignment',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='folder_assignments', on_delete=OnDelete.CASCADE)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='assignments', on_delete=OnDelete.CASCADE)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'folder_assignments', 'app': 'bff', 'unique_together': (('user', 'folder'),), 'pk_attr': 'id', 'table_description': 'A patient folder assigned to a user (who also has its container).'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Session',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=32)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='sessions', on_delete=OnDelete.CASCADE)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('expires_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
                ('client_address', fields.CharField(default='', max_length=64)),
            ],
            options={'table': 'sessions', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'A live session: a token is valid only while its row exists and has not expired.'},
            bases=['Model'],
        ),
    ]
