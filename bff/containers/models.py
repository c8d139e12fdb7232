"""Storage containers and their patient folders, kept in naturally sortable form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tortoise import fields
from tortoise.models import Model

if TYPE_CHECKING:
    from bff.assignments.models import ContainerAssignment, FolderAssignment


class Container(Model):
    """A storage container (one per group), holding patient folders."""

    id = fields.IntField(primary_key=True)
    name = fields.CharField(max_length=63, unique=True)
    sort_prefix = fields.CharField(max_length=63)
    sort_number = fields.BigIntField()
    created_at = fields.DatetimeField(auto_now_add=True)
    assignments: fields.ReverseRelation[ContainerAssignment]
    folders: fields.ReverseRelation[Folder]

    class Meta:
        table = "containers"
        indexes = (("sort_prefix", "sort_number", "name"),)


class Folder(Model):
    """A patient folder inside a container."""

    id = fields.IntField(primary_key=True)
    container: fields.ForeignKeyRelation[Container] = fields.ForeignKeyField(
        "bff.Container", related_name="folders", on_delete=fields.CASCADE
    )
    name = fields.CharField(max_length=100)
    sort_prefix = fields.CharField(max_length=100)
    sort_number = fields.BigIntField()
    created_at = fields.DatetimeField(auto_now_add=True)
    # The patient's demographics, each optional (bff/patients/rules.py validates them), and
    # what a search matches them by: rules.search_text, kept with them in every write.
    patient_name = fields.CharField(max_length=200, null=True)
    patient_birth_date = fields.DateField(null=True)
    patient_record_number = fields.CharField(max_length=64, null=True)
    patient_search = fields.TextField(default="")
    # The record number as compared for uniqueness (rules.record_key: trimmed, lower case):
    # one folder per key. Null without a record number, and for a duplicate found when
    # migration 0032 added it (`folders duplicates` lists those; saving one refuses it).
    patient_record_key = fields.CharField(max_length=64, null=True, unique=True)
    container_id: int
    assignments: fields.ReverseRelation[FolderAssignment]

    class Meta:
        table = "folders"
        unique_together = (("container", "name"),)
        indexes = (("container_id", "sort_prefix", "sort_number", "name"),)
