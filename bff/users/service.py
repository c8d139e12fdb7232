"""User management rules: uniqueness, the last-admin guard, revoking sessions on change."""

from __future__ import annotations

import json

from tortoise import connections

from bff.assignments.repository import assignments_of
from bff.assignments.schemas import ContainerAssignmentOut, FolderAssignmentOut
from bff.audit.service import Actor, record
from bff.auth.passwords import hash_password
from bff.auth.sessions import Principal, end_all_sessions
from bff.db import fetch, transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, SESSION_REVOKED, USERS_CHANGED, publish, user_room
from bff.users.models import Role, User
from bff.users.schemas import (
    CreateUser,
    DashboardResponse,
    DashboardStats,
    UpdateUser,
    UserOut,
    UserSummary,
)

USER_NOT_FOUND = "User not found"
MIN_PASSWORD = 8


async def find_user(user_id: int) -> User:
    """A user by id, or 404."""
    user = await User.get_or_none(id=user_id)
    if user is None:
        raise ApiError(404, USER_NOT_FOUND)
    return user


def user_out(
    user: User | Principal,
    containers: list[ContainerAssignmentOut],
    folders: list[FolderAssignmentOut],
) -> UserOut:
    """The response shape of a user (or the signed-in caller) with their assignments."""
    user_id = user.id if isinstance(user, User) else user.user_id
    return UserOut(
        id=user_id,
        userId=user_id,
        name=user.name,
        username=user.username,
        role=user.role.value,
        containerAssignments=containers,
        folderAssignments=folders,
    )


async def _users_out(users: list[User]) -> list[UserOut]:
    """The response shapes of users, their assignments read in one flat query.

    Plain rows rather than prefetched models: a user list with thousands of folder assignments
    would otherwise build a model object per assignment, folder and container.
    """
    containers, folders = await assignments_of([u.id for u in users])
    return [user_out(u, containers[u.id], folders[u.id]) for u in users]


USER_FOLDER_COUNTS = "SELECT user_id, COUNT(*) AS n FROM folder_assignments GROUP BY user_id"
CONTAINER_ASSIGNMENTS = (
    "SELECT ca.id AS id, ca.user_id AS user_id, c.name AS container FROM container_assignments ca "
    "JOIN containers c ON c.id = ca.container_id ORDER BY c.name, ca.id"
)
# Each user's folder assignments as one JSON array, written by the database: at the scale
# volume (15,000 assignments) building and serialising an object for each in Python took most
# of the time of the export below.
FOLDERS_AS_JSON = {
    "sqlite": """
SELECT user_id, json_group_array(json_object('id', id, 'containerName', container,
                                             'folderName', folder)) AS folders
  FROM (SELECT fa.user_id AS user_id, fa.id AS id, c.name AS container, f.name AS folder
          FROM folder_assignments fa JOIN folders f ON f.id = fa.folder_id
          JOIN containers c ON c.id = f.container_id
         ORDER BY fa.user_id, c.name, f.name, fa.id)
 GROUP BY user_id
""",
    "postgres": """
SELECT fa.user_id AS user_id,
       json_agg(json_build_object('id', fa.id, 'containerName', c.name, 'folderName', f.name)
                ORDER BY c.name, f.name, fa.id)::text AS folders
  FROM folder_assignments fa JOIN folders f ON f.id = fa.folder_id
  JOIN containers c ON c.id = f.container_id
 GROUP BY fa.user_id
""",
}


async def _containers_by_user() -> dict[int, list[ContainerAssignmentOut]]:
    """Every user's container assignments, by user id."""
    containers: dict[int, list[ContainerAssignmentOut]] = {}
    for row in await fetch(CONTAINER_ASSIGNMENTS):
        containers.setdefault(row["user_id"], []).append(
            ContainerAssignmentOut(id=row["id"], containerName=row["container"])
        )
    return containers


async def users_with_assignments_json() -> str:
    """Every user with every assignment, sorted by name: the JSON text of a UsersResponse."""
    users = await User.all().order_by("name", "id")
    containers = await _containers_by_user()
    dialect = connections.get("default").capabilities.dialect
    folders = {row["user_id"]: row["folders"] for row in await fetch(FOLDERS_AS_JSON[dialect])}
    entries = []
    for u in users:
        head = json.dumps(
            {
                "id": u.id,
                "userId": u.id,
                "name": u.name,
                "username": u.username,
                "role": u.role.value,
                "containerAssignments": [c.model_dump() for c in containers.get(u.id, [])],
            }
        )
        entries.append(f'{head[:-1]}, "folderAssignments": {folders.get(u.id, "[]")}}}')
    return '{"users": [' + ", ".join(entries) + "]}"


async def list_users() -> list[UserSummary]:
    """Every user with their containers and folder count, sorted by name."""
    users = await User.all().order_by("name", "id")
    counts = {row["user_id"]: row["n"] for row in await fetch(USER_FOLDER_COUNTS)}
    containers = await _containers_by_user()
    return [
        UserSummary(
            id=u.id,
            userId=u.id,
            name=u.name,
            username=u.username,
            role=u.role.value,
            containerAssignments=containers.get(u.id, []),
            folderCount=counts.get(u.id, 0),
        )
        for u in users
    ]


async def get_user(user_id: int) -> UserOut:
    """One user with assignments, or 404."""
    user = await User.get_or_none(id=user_id)
    if user is None:
        raise ApiError(404, USER_NOT_FOUND)
    return (await _users_out([user]))[0]


async def _check_username_free(username: str, except_id: int | None = None) -> None:
    query = User.filter(username=username)
    if except_id is not None:
        query = query.exclude(id=except_id)
    if await query.exists():
        raise ApiError(409, f"The username '{username}' is already taken.")


async def create_user(data: CreateUser, actor: Actor) -> UserOut:
    """Create a doctor, nurse or assistant."""
    await _check_username_free(data.username)
    password_hash = await hash_password(data.password)
    async with transaction() as conn:
        user = await User.create(
            name=data.name,
            username=data.username,
            role=Role(data.role),
            password_hash=password_hash,
            using_db=conn,
        )
        await record(conn, actor, "user_create", details=f"user={user.username} role={user.role}")
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return await get_user(user.id)


async def _admin_count() -> int:
    return await User.filter(role=Role.ADMIN).count()


async def update_user(user_id: int, data: UpdateUser, actor: Actor) -> UserOut:
    """Update name, username, role and optionally password; role or password change signs out."""
    user = await find_user(user_id)
    await _check_username_free(data.username, except_id=user.id)
    new_role = Role(data.role)
    if new_role != user.role:
        if new_role == Role.ADMIN:
            raise ApiError(400, "Admins can only be created from the command line.")
        if user.id == actor.user_id:
            raise ApiError(409, "You cannot change your own role.")
        if user.role == Role.ADMIN and await _admin_count() <= 1:
            raise ApiError(409, "The last admin cannot be changed to another role.")
    password = data.password or ""
    if password and len(password) < MIN_PASSWORD:
        raise ApiError(400, f"Password must be at least {MIN_PASSWORD} characters.")
    changes = [
        label
        for label, changed in (
            ("name", data.name != user.name),
            ("username", data.username != user.username),
            ("role", new_role != user.role),
            ("password", bool(password)),
        )
        if changed
    ]
    revoke = new_role != user.role or bool(password)
    user.name, user.username, user.role = data.name, data.username, new_role
    if password:
        user.password_hash = await hash_password(password)
    async with transaction() as conn:
        await user.save(using_db=conn)
        if revoke:
            await end_all_sessions(user.id, conn, reason="account-changed")
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        await record(
            conn,
            actor,
            "user_update",
            details=f"user={user.username} changed={','.join(changes) or 'nothing'}",
        )
    return await get_user(user.id)


async def delete_user(user_id: int, actor: Actor) -> str:
    """Delete a user with their sessions and assignments; return their name."""
    user = await find_user(user_id)
    if user.id == actor.user_id:
        raise ApiError(409, "You cannot delete your own account.")
    if user.role == Role.ADMIN and await _admin_count() <= 1:
        raise ApiError(409, "The last admin cannot be deleted.")
    containers = await user.container_assignments.all().count()
    folders = await user.folder_assignments.all().count()
    async with transaction() as conn:
        await record(
            conn,
            actor,
            "user_delete",
            details=f"user={user.username} containers={containers} folders={folders}",
        )
        await user.delete(using_db=conn)
        publish(SESSION_REVOKED, {"reason": "account-deleted"}, [user_room(user.id)])
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return user.name


async def dashboard() -> DashboardResponse:
    """The admin dashboard: counts by role and the 5 most recently created users."""
    recent = await User.all().order_by("-created_at", "-id").limit(5)
    counts = {role: await User.filter(role=role).count() for role in Role}
    return DashboardResponse(
        users=await _users_out(list(recent)),
        stats=DashboardStats(
            totalUsers=sum(counts.values()),
            doctors=counts[Role.DOCTOR],
            nurses=counts[Role.NURSE],
            assistants=counts[Role.ASSISTANT],
        ),
    )
