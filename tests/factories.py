"""Factories that give each test fresh data: users with sessions, containers, folders."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from argon2 import PasswordHasher

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, entry_hash
from bff.auth.sessions import open_session
from bff.containers.models import Container, Folder
from bff.files.models import StoredFile
from bff.files.names import extension_of
from bff.naming import sort_key
from bff.users.models import Role, User
from config.settings import Settings
from storage.base import Storage

PASSWORD = "correct horse battery"


@lru_cache(maxsize=8)
def _hash(password: str) -> str:
    return PasswordHasher().hash(password)


@dataclass
class StaffMember:
    """A user with a live session token."""

    user: User
    token: str

    @property
    def headers(self) -> dict[str, str]:
        """Request headers that authenticate as this user."""
        return {"x-auth-token": self.token}


async def make_user(
    role: Role | str = Role.NURSE,
    *,
    username: str | None = None,
    name: str | None = None,
    password: str = PASSWORD,
) -> User:
    """A user in the database (the password hash is computed once per password)."""
    role = Role(role)
    username = username or f"{role.value}-{secrets.token_hex(4)}"
    return await User.create(
        name=name or f"Test {role.value.title()} {username[-4:]}",
        username=username,
        role=role,
        password_hash=_hash(password),
    )


async def make_staff(
    settings: Settings, role: Role | str = Role.NURSE, **kwargs: str
) -> StaffMember:
    """A user with an open session."""
    user = await make_user(role, **kwargs)
    return StaffMember(user, await open_session(user, settings, "127.0.0.1"))


async def make_container(name: str | None = None) -> Container:
    """A container."""
    name = name or f"ward-{secrets.token_hex(3)}"
    prefix, number = sort_key(name)
    return await Container.create(name=name, sort_prefix=prefix, sort_number=number)


async def make_folder(container: Container, name: str | None = None) -> Folder:
    """A patient folder."""
    name = name or f"patient-{secrets.randbelow(10**6)}"
    prefix, number = sort_key(name)
    return await Folder.create(
        container=container, name=name, sort_prefix=prefix, sort_number=number
    )


async def make_folders(container: Container, *names: str) -> None:
    """Patient folders with these names."""
    for name in names:
        await make_folder(container, name)


async def unknown_user_id() -> int:
    """The id of a user who no longer exists."""
    gone = await make_user(Role.NURSE)
    await gone.delete()
    return gone.id


async def assign(user: User, container: Container, *folders: Folder) -> ContainerAssignment:
    """Assign a container and some of its folders to a user."""
    ca = await ContainerAssignment.create(user=user, container=container)
    for folder in folders:
        await FolderAssignment.create(user=user, folder=folder)
    return ca


async def make_audit_entry(
    operation: str = "login",
    *,
    timestamp: datetime | None = None,
    user: User | None = None,
    container: str = "",
    folder: str = "",
    blob: str = "",
    details: str = "",
) -> AuditLog:
    """An audit entry at a chosen time, chained to the log like a real one."""
    last = await AuditLog.all().order_by("-id").first()
    prev_hash = last.hash if last else GENESIS_HASH
    entry = AuditLog(
        timestamp=timestamp or datetime.now(UTC),
        user_id=user.id if user else None,
        name=user.name if user else "",
        role=user.role.value if user else "",
        operation=operation,
        container_name=container,
        folder_name=folder,
        blob_name=blob,
        client_address="127.0.0.1",
        details=details,
        prev_hash=prev_hash,
    )
    entry.hash = entry_hash(prev_hash, entry)
    await entry.save()
    return entry


async def make_file(
    storage: Storage,
    folder: Folder,
    name: str = "report.txt",
    data: bytes = b"blood pressure 120/80\n",
    content_type: str = "text/plain",
) -> StoredFile:
    """A stored and indexed file in a folder."""
    container = await Container.get(id=folder.container_id)

    async def chunks() -> AsyncIterator[bytes]:
        yield data

    await storage.write(container.name, folder.name, name, chunks())
    info = await storage.stat(container.name, folder.name, name)
    return await StoredFile.create(
        folder=folder,
        name=name,
        content_type=content_type,
        size=info.size,
        last_modified=info.last_modified,
        extension=extension_of(name),
        is_profile_image=name == "patient-profile.jpg",
    )
