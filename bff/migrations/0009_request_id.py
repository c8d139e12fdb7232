from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('bff', '0008_mfa')]

    initial = False

    operations = [
        ops.AddField(
            model_name='AuditLog',
            name='request_id',
            field=fields.CharField(default='', db_default='', max_length=64),
        ),
    ]
