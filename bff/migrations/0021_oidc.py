"""Single sign-on (issue 35): accounts linked to an OpenID Provider's subjects, the provider's
sessions behind ours, one-use marks (state, logout jti) and sign-in hand-overs."""

from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0020_patient_demographics')]

    initial = False

    operations = [
        ops.CreateModel(
            name='OidcHandoff',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='oidc_handoffs', on_delete=OnDelete.CASCADE)),
                ('issuer', fields.CharField(max_length=255)),
                ('subject', fields.CharField(max_length=255)),
                ('provider_sid', fields.CharField(default='', max_length=255)),
                ('mfa', fields.BooleanField(default=False)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'oidc_handoffs', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'A sign-in the provider vouched for, waiting (a minute) for the web app to take it up'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='OidcLink',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('user', fields.ForeignKeyField('bff.User', source_field='user_id', db_constraint=True, to_field='id', related_name='oidc_links', on_delete=OnDelete.CASCADE)),
                ('issuer', fields.CharField(max_length=255)),
                ('subject', fields.CharField(max_length=255)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'oidc_links', 'app': 'bff', 'unique_together': (('issuer', 'subject'),), 'pk_attr': 'id', 'table_description': "A user linked to a provider's subject (`sub`, unique within its issuer)."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='OidcOnce',
            fields=[
                ('key', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('expires_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'oidc_once', 'app': 'bff', 'pk_attr': 'key', 'table_description': "A value accepted once: a sign-in's `state`, a logout token's `jti`."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='OidcSession',
            fields=[
                ('session', fields.OneToOneField('bff.Session', source_field='session_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='oidc', on_delete=OnDelete.CASCADE)),
                ('issuer', fields.CharField(max_length=255)),
                ('subject', fields.CharField(max_length=255)),
                ('provider_sid', fields.CharField(default='', db_index=True, max_length=255)),
            ],
            options={'table': 'oidc_sessions', 'app': 'bff', 'pk_attr': 'session_id', 'table_description': "A session opened through the provider, with the provider's session id (`sid`), so a"},
            bases=['Model'],
        ),
    ]
