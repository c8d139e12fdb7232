from tortoise import migrations
from tortoise.migrations import operations as ops
from bff.tokens.models import TokenStatus
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0002_files')]

    initial = False

    operations = [
        ops.CreateModel(
            name='SmartToken',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('token_id', fields.CharField(unique=True, max_length=64)),
                ('secure_chip_id', fields.CharField(unique=True, max_length=128)),
                ('status', fields.CharEnumField(default=TokenStatus.UNCLAIMED, description='UNCLAIMED: unclaimed\nASSIGNED: assigned\nREVOKED: revoked', enum_type=TokenStatus, max_length=16)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', null=True, unique=True, db_constraint=True, to_field='id', related_name='smart_tokens', on_delete=OnDelete.SET_NULL)),
                ('patient_name', fields.CharField(null=True, max_length=200)),
                ('patient_date_of_birth', fields.DateField(null=True)),
                ('assigned_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('revoke_reason', fields.CharField(null=True, max_length=200)),
                ('revoked_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'smart_tokens', 'app': 'bff', 'pk_attr': 'id', 'table_description': "A physical device a patient carries: its verification link opens the patient's folder."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='EmergencyGrant',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('token', fields.ForeignKeyField('bff.SmartToken', source_field='token_id', db_constraint=True, to_field='id', related_name='grants', on_delete=OnDelete.CASCADE)),
                ('folder', fields.ForeignKeyField('bff.Folder', source_field='folder_id', db_constraint=True, to_field='id', related_name='emergency_grants', on_delete=OnDelete.CASCADE)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('expires_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
                ('client_address', fields.CharField(max_length=64)),
            ],
            options={'table': 'emergency_grants', 'app': 'bff', 'pk_attr': 'id', 'table_description': "One responder's access, named by a random id kept in an HttpOnly cookie."},
            bases=['Model'],
        ),
    ]
