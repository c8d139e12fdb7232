"""Request and response shapes of containers and folders."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from bff.patients.schemas import PatientDetails

SearchText = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]
# A folder search's answer found only by the one-typo fallback (patients/finder.py).
Approximate = Annotated[
    bool,
    Field(
        description="True when no folder matched the search as typed and these are the names "
        "within one typo of it: the closest names, never to be opened as the one asked for"
    ),
]


class CreateContainer(BaseModel):
    """POST /api/admin/containers."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]


class CreateFolder(BaseModel):
    """POST /api/admin/containers/{container}/folders."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]


class ContainerCreated(BaseModel):
    """A created container."""

    message: str
    containerName: str


class FolderCreated(BaseModel):
    """A created folder."""

    message: str
    containerName: str
    folderName: str


class ListQuery(BaseModel):
    """Optional search and paging: q is a case-insensitive substring; no pageSize means all."""

    q: SearchText = ""
    page: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    pageSize: Annotated[int, Field(ge=1, le=1000)] | None = None


class ContainersResponse(BaseModel):
    """Container names in natural order, with the total matching the search."""

    containers: list[str]
    total: int
    page: int
    pageSize: int | None


class FoldersResponse(BaseModel):
    """Folder names in natural order, with the total matching the search (a folder's name, or
    its patient's name, record number or date of birth)."""

    folders: list[str]
    patients: dict[str, PatientDetails] = Field(
        default_factory=dict,
        description="The patient of each listed folder that has one, by folder name",
    )
    total: int
    page: int
    pageSize: int | None
    approximate: Approximate = False
