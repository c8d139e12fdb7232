"""Patient demographics (issue 34): each folder's optional patient name, date of birth and
record number, and the folded text a folder search matches them by."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('bff', '0019_file_previews')]

    initial = False

    operations = [
        ops.AddField(model_name='Folder', name='patient_name', field=fields.CharField(max_length=200, null=True)),
        ops.AddField(model_name='Folder', name='patient_birth_date', field=fields.DateField(null=True)),
        ops.AddField(model_name='Folder', name='patient_record_number', field=fields.CharField(max_length=64, null=True)),
        ops.AddField(model_name='Folder', name='patient_search', field=fields.TextField(default='')),
    ]
