from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0003_smart_tokens')]

    initial = False

    operations = [
        ops.AddField(
            model_name='SmartToken',
            name='last_tap_at',
            field=fields.DatetimeField(null=True, auto_now=False, auto_now_add=False),
        ),
        ops.AddField(
            model_name='SmartToken',
            name='sun_counter',
            field=fields.IntField(null=True),
        ),
        ops.AddField(
            model_name='SmartToken',
            name='sun_key',
            field=fields.CharField(null=True, max_length=128),
        ),
        ops.AddField(
            model_name='SmartToken',
            name='sun_uid',
            field=fields.CharField(null=True, unique=True, max_length=14),
        ),
    ]
