from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0004_sun_tokens')]

    initial = False

    operations = [
        ops.CreateModel(
            name='PendingUpload',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('container', fields.CharField(max_length=255)),
                ('folder', fields.CharField(max_length=255)),
                ('name', fields.CharField(max_length=255)),
                ('staging_key', fields.CharField(unique=True, max_length=100)),
                ('started_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('alive_at', fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False)),
                ('instance', fields.CharField(max_length=255)),
            ],
            options={'table': 'pending_uploads', 'app': 'bff', 'pk_attr': 'id', 'table_description': 'An upload whose bytes are staged but not yet indexed (one row per staged object).'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Lease',
            fields=[
                ('name', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('holder', fields.CharField(max_length=255)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'leases', 'app': 'bff', 'pk_attr': 'name', 'table_description': 'A named job only one process runs at a time: held by holder until expires_at.'},
            bases=['Model'],
        ),
    ]
