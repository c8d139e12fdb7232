"""Single sign-on without linking by a claim (issue 47): a hand-over bound to the browser that
started the sign-in, offers to link an account by its password, an admin's "link at next
sign-in", and the subjects seen without a link (for an admin to pick)."""

from tortoise import fields, migrations
from tortoise.fields.base import OnDelete
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0023_search_pieces")]

    initial = False

    operations = [
        ops.AddField(
            model_name="OidcHandoff",
            name="browser",
            field=fields.CharField(default="", max_length=64),
        ),
        ops.CreateModel(
            name="OidcLinkOffer",
            fields=[
                (
                    "id",
                    fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64),
                ),
                ("issuer", fields.CharField(max_length=255)),
                ("subject", fields.CharField(max_length=255)),
                ("provider_sid", fields.CharField(default="", max_length=255)),
                ("mfa", fields.BooleanField(default=False)),
                ("browser", fields.CharField(max_length=64)),
                (
                    "expires_at",
                    fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False),
                ),
            ],
            options={
                "table": "oidc_link_offers",
                "app": "bff",
                "pk_attr": "id",
                "table_description": "A sign-in the provider vouched for of a subject linked to no account: for a few minutes,",
            },
            bases=["Model"],
        ),
        ops.CreateModel(
            name="OidcExpected",
            fields=[
                (
                    "user",
                    fields.OneToOneField(
                        "bff.User",
                        source_field="user_id",
                        primary_key=True,
                        db_index=True,
                        db_constraint=True,
                        to_field="id",
                        related_name="oidc_expected",
                        on_delete=OnDelete.CASCADE,
                    ),
                ),
                ("expires_at", fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ("created_at", fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={
                "table": "oidc_expected",
                "app": "bff",
                "pk_attr": "user_id",
                "table_description": 'An admin\'s "link at next sign-in": until it expires, the next sign-in through the',
            },
            bases=["Model"],
        ),
        ops.CreateModel(
            name="OidcSeen",
            fields=[
                (
                    "id",
                    fields.IntField(generated=True, primary_key=True, unique=True, db_index=True),
                ),
                ("issuer", fields.CharField(max_length=255)),
                ("subject", fields.CharField(max_length=255)),
                ("username", fields.CharField(default="", max_length=100)),
                ("name", fields.CharField(default="", max_length=100)),
                (
                    "seen_at",
                    fields.DatetimeField(db_index=True, auto_now=False, auto_now_add=False),
                ),
            ],
            options={
                "table": "oidc_seen",
                "app": "bff",
                "unique_together": (("issuer", "subject"),),
                "pk_attr": "id",
                "table_description": "A subject that signed in at the provider but is linked to no account (for a week), with",
            },
            bases=["Model"],
        ),
    ]
