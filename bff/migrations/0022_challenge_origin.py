"""Single sign-on with the local second step (issue 35): a pending second step remembers the
identity provider's sign-in it completes, so the session it opens is the provider's too."""

from tortoise import fields, migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('bff', '0021_oidc')]

    initial = False

    operations = [
        ops.AddField(
            model_name='MfaChallenge',
            name='origin',
            field=fields.TextField(null=True),
        ),
    ]
