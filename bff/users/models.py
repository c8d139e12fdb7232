"""Staff user accounts."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.assignments.models import ContainerAssignment, FolderAssignment
    from bff.auth.models import Session


class Role(StrEnum):
    """The four staff roles of the spec."""

    ADMIN = "admin"
    DOCTOR = "doctor"
    NURSE = "nurse"
    ASSISTANT = "assistant"


class User(Model):
    """A member of staff who signs in."""

    id = fields.IntField(primary_key=True)
    name = fields.CharField(max_length=100)
    username = fields.CharField(max_length=50, unique=True)
    role = fields.CharEnumField(Role, max_length=16)
    password_hash = fields.CharField(max_length=255)
    # May use the intake (issue 51: bff/intake/), granted and withdrawn by an admin; admins
    # always may, whatever this says.
    intake = fields.BooleanField(default=False, db_default=False)
    created_at = fields.DatetimeField(auto_now_add=True)
    updated_at = fields.DatetimeField(auto_now=True)
    container_assignments: fields.ReverseRelation[ContainerAssignment]
    folder_assignments: fields.ReverseRelation[FolderAssignment]
    sessions: fields.ReverseRelation[Session]

    class Meta:
        table = "users"
