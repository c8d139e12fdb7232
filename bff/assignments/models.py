"""Which containers and folders each member of staff may see."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.containers.models import Container, Folder
    from bff.users.models import User


class ContainerAssignment(Model):
    """A container assigned to a user."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="container_assignments", on_delete=fields.CASCADE
    )
    container: fields.ForeignKeyRelation[Container] = fields.ForeignKeyField(
        "bff.Container", related_name="assignments", on_delete=fields.CASCADE
    )
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "container_assignments"
        unique_together = (("user", "container"),)


class FolderAssignment(Model):
    """A patient folder assigned to a user (who also has its container)."""

    id = fields.IntField(primary_key=True)
    user: fields.ForeignKeyRelation[User] = fields.ForeignKeyField(
        "bff.User", related_name="folder_assignments", on_delete=fields.CASCADE
    )
    folder: fields.ForeignKeyRelation[Folder] = fields.ForeignKeyField(
        "bff.Folder", related_name="assignments", on_delete=fields.CASCADE
    )
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "folder_assignments"
        unique_together = (("user", "folder"),)
