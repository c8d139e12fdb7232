"""Link at next sign-in by a one-time link code (issue 47, item 2): the code's hash with the
user's expected link. Links expected by the username claim before go: no claim links any more,
so each such user gets a code from an admin."""

from typing import Any

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


async def _drop_claim_expectations(apps: Any, schema_editor: Any) -> None:
    await schema_editor.client.execute_query("DELETE FROM oidc_expected")


class Migration(migrations.Migration):
    dependencies = [("bff", "0025_throttle_entries")]

    initial = False

    operations = [
        ops.RunPython(_drop_claim_expectations),
        ops.AddField(
            model_name="OidcExpected",
            name="code_hash",
            field=fields.CharField(default="", db_index=True, max_length=64),
        ),
    ]
