"""Step-up (issue 30): when each session last proved its password or a factor. Existing
sessions count from their sign-in."""

from typing import Any

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


async def _from_sign_in(apps: Any, schema_editor: Any) -> None:
    await schema_editor.client.execute_query(
        "UPDATE sessions SET authenticated_at = created_at WHERE authenticated_at IS NULL"
    )


class Migration(migrations.Migration):
    dependencies = [('bff', '0009_request_id')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Session',
            name='authenticated_at',
            field=fields.DatetimeField(null=True, auto_now=False, auto_now_add=False),
        ),
        ops.RunPython(_from_sign_in),
    ]
