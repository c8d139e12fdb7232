from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0007_audit_integrity')]

    initial = False

    operations = [
        ops.CreateModel(
            name='MfaChallenge',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='mfa_challenges', on_delete=OnDelete.CASCADE)),
                ('purpose', fields.CharField(max_length=16)),
                ('webauthn_challenge', fields.CharField(null=True, max_length=128)),
                ('expires_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'mfa_challenges', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'A pending second step: the hash of an mfaToken (sign-in) or of a session id (passkey'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Passkey',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='passkeys', on_delete=OnDelete.CASCADE)),
                ('credential_id', fields.CharField(unique=True, max_length=1400)),
                ('public_key', fields.TextField(unique=False)),
                ('sign_count', fields.BigIntField(default=0)),
                ('label', fields.CharField(max_length=100)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('last_used_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'mfa_passkeys', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'A WebAuthn credential registered by a user.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='RecoveryCode',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='recovery_codes', on_delete=OnDelete.CASCADE)),
                ('code_hash', fields.CharField(max_length=64)),
            ],
            options={'table': 'mfa_recovery_codes', 'app': 'bff', 'unique_together': (('user', 'code_hash'),), 'pk_attr': 'id', 'table_description': 'One unused recovery code, as a keyed hash, deleted when used.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='TotpFactor',
            fields=[
                ('user', fields.OneToOneField('bff.User', source_field='user_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='totp', on_delete=OnDelete.CASCADE)),
                ('secret', fields.CharField(null=True, max_length=255)),
                ('pending', fields.CharField(null=True, max_length=255)),
                ('last_step', fields.BigIntField(default=0)),
                ('confirmed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'mfa_totp', 'app': 'bff', 'pk_attr': 'user_id', 'table_description': "A user's authenticator: the confirmed seed and/or one pending confirmation, both sealed"},
            bases=['Model'],
        ),
        ops.AddField(
            model_name='Session',
            name='restricted',
            field=fields.BooleanField(default=False, db_default=False),
        ),
    ]
