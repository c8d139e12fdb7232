"""Request and response shapes of assignments (spec sections 3 and 7)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bff.ids import DbId


class ContainerAssignmentOut(BaseModel):
    """A container assigned to a user."""

    id: int
    containerName: str


class FolderAssignmentOut(BaseModel):
    """A folder assigned to a user."""

    id: int
    containerName: str
    folderName: str


class AssignedFolder(BaseModel):
    """A folder in the non-admin assignment view."""

    id: int
    folderName: str


class Assignment(BaseModel):
    """A container assigned to the caller, with the folders assigned in it."""

    id: int
    containerName: str
    folders: list[AssignedFolder]


class MyAssignmentsResponse(BaseModel):
    """GET /api/assignments/my-assignments."""

    assignments: list[Assignment]


class UserAssignmentsResponse(BaseModel):
    """GET /api/assignments/users/{userId}."""

    containerAssignments: list[ContainerAssignmentOut]
    folderAssignments: list[FolderAssignmentOut]


class ContainerAssigned(BaseModel):
    """The result of assigning a container."""

    message: str
    assignment: ContainerAssignmentOut


class AssignFolders(BaseModel):
    """POST /api/assignments/containers/{container}/folders."""

    userId: DbId
    folderNames: Annotated[
        list[Annotated[str, Field(max_length=200)]], Field(min_length=1, max_length=5000)
    ]


class FoldersAssigned(BaseModel):
    """The result of assigning folders: the new ones and those the user already had."""

    message: str
    assigned: list[FolderAssignmentOut]
    alreadyAssigned: list[str]


class UnassignQuery(BaseModel):
    """DELETE /api/assignments/{id}?type=container|folder."""

    type: Literal["container", "folder"]
