"""Storage containers and their patient folders, kept in naturally sortable form."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Container(Model):
    """A storage container (one per group), holding patient folders."""

    id = fields.IntField(primary_key=True)
    name = fields.CharField(max_length=63, unique=True)
    sort_prefix = fields.CharField(max_length=63)
    sort_number = fields.BigIntField()
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "containers"
        indexes = (("sort_prefix", "sort_number", "name"),)


class Folder(Model):
    """A patient folder inside a container."""

    id = fields.IntField(primary_key=True)
    container = fields.ForeignKeyField(
        "bff.Container", related_name="folders", on_delete=fields.CASCADE
    )
    name = fields.CharField(max_length=100)
    sort_prefix = fields.CharField(max_length=100)
    sort_number = fields.BigIntField()
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "folders"
        unique_together = (("container", "name"),)
        indexes = (("container_id", "sort_prefix", "sort_number", "name"),)
