"""User management rules: uniqueness, the last-admin guard, revoking sessions on change."""

from __future__ import annotations

from bff.assignments import repository as assignments
from bff.assignments.schemas import ContainerAssignmentOut, FolderAssignmentOut
from bff.audit.service import Actor, record
from bff.auth.password_rule import hash_new_password
from bff.auth.sessions import Principal, end_all_sessions
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, SESSION_REVOKED, USERS_CHANGED, publish, user_room
from bff.mfa import repository as mfa
from bff.oidc import repository as oidc
from bff.users import bootstrap, repository
from bff.users.models import Role, User
from bff.users.schemas import (
    CreateUser,
    DashboardResponse,
    DashboardStats,
    UpdateUser,
    UserDetail,
    UserOut,
    UserSummary,
)

USER_NOT_FOUND = "User not found"


async def find_user(user_id: int) -> User:
    """A user by id, or 404."""
    user = await repository.user_by_id(user_id)
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
    containers, folders = await assignments.assignments_of([u.id for u in users])
    return [user_out(u, containers[u.id], folders[u.id]) for u in users]


async def users_with_assignments_json() -> str:
    """Every user with every assignment, sorted by name: the JSON text of a UsersResponse."""
    return await repository.users_document()


async def list_users() -> list[UserSummary]:
    """Every user with their containers and folder count, sorted by name."""
    users = await repository.users_by_name()
    counts = await assignments.folder_counts_by_user()
    containers = await assignments.container_assignments_by_user()
    with_factor = await mfa.users_with_factor()
    return [
        UserSummary(
            id=u.id,
            userId=u.id,
            name=u.name,
            username=u.username,
            role=u.role.value,
            containerAssignments=containers.get(u.id, []),
            folderCount=counts.get(u.id, 0),
            secondFactor=u.id in with_factor,
            intake=u.intake,
        )
        for u in users
    ]


async def get_user(user_id: int) -> UserDetail:
    """One user with assignments and whether they have a second factor, or 404."""
    row = await find_user(user_id)
    user = (await _users_out([row]))[0]
    return UserDetail(
        **user.model_dump(),
        secondFactor=bool(await mfa.users_with_factor([user_id])),
        ssoLinked=bool(await oidc.linked_users([user_id])),
        intake=row.intake,
    )


async def _check_username_free(username: str, except_id: int | None = None) -> None:
    if await repository.username_taken(username, except_id):
        raise ApiError(409, f"The username '{username}' is already taken.")


async def create_user(data: CreateUser, actor: Actor, min_length: int) -> UserOut:
    """Create a doctor, nurse or assistant (a password of at least min_length characters)."""
    await _check_username_free(data.username)
    user = await bootstrap.create_user(
        data.name, data.username, Role(data.role), data.password, min_length, actor
    )
    return await get_user(user.id)


async def update_user(user_id: int, data: UpdateUser, actor: Actor, min_length: int) -> UserOut:
    """Update name, username, role, optionally password (of at least min_length characters)
    and the intake permission (granted or withdrawn: effective at the next request and live
    event, since users:changed makes every process forget the user's cached sessions); role or
    password change signs out."""
    user = await find_user(user_id)
    await _check_username_free(data.username, except_id=user.id)
    new_role = Role(data.role)
    if new_role != user.role:
        if new_role == Role.ADMIN:
            raise ApiError(400, "Admins can only be created from the command line.")
        if user.id == actor.user_id:
            raise ApiError(409, "You cannot change your own role.")
        if user.role == Role.ADMIN and await repository.count_with_role(Role.ADMIN) <= 1:
            raise ApiError(409, "The last admin cannot be changed to another role.")
    password = data.password or ""
    new_hash = (
        await hash_new_password(password, min_length, (data.username, data.name))
        if password
        else None
    )
    changes = [
        label
        for label, changed in (
            ("name", data.name != user.name),
            ("username", data.username != user.username),
            ("role", new_role != user.role),
            ("password", bool(password)),
            ("intake", data.intake is not None and data.intake != user.intake),
        )
        if changed
    ]
    revoke = new_role != user.role or bool(password)
    user.name, user.username, user.role = data.name, data.username, new_role
    if data.intake is not None:
        user.intake = data.intake
    if new_hash:
        user.password_hash = new_hash
    async with transaction() as conn:
        await repository.save_user(conn, user)
        if revoke:
            # The reason the signed-out user is shown: a new password says so even with a new role.
            reason = "password-changed" if password else "role-changed"
            await end_all_sessions(user.id, conn, reason=reason)
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        await record(
            conn,
            actor,
            "user_update",
            details=f"user={user.username} changed={','.join(changes) or 'nothing'}"
            + (
                f" intake={'granted' if user.intake else 'withdrawn'}"
                if "intake" in changes
                else ""
            ),
        )
    return await get_user(user.id)


async def delete_user(user_id: int, actor: Actor) -> str:
    """Delete a user with their sessions and assignments; return their name."""
    user = await find_user(user_id)
    if user.id == actor.user_id:
        raise ApiError(409, "You cannot delete your own account.")
    if user.role == Role.ADMIN and await repository.count_with_role(Role.ADMIN) <= 1:
        raise ApiError(409, "The last admin cannot be deleted.")
    containers, folders = await assignments.assignment_counts(user.id)
    async with transaction() as conn:
        await record(
            conn,
            actor,
            "user_delete",
            details=f"user={user.username} containers={containers} folders={folders}",
        )
        await repository.delete_user(conn, user)
        publish(SESSION_REVOKED, {"reason": "account-deleted"}, [user_room(user.id)])
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return user.name


async def dashboard() -> DashboardResponse:
    """The admin dashboard: counts by role and the first 5 users in the users list's order
    (spec section 2: "a Recent Users table of the first 5 users")."""
    recent = await repository.first_users_by_name(5)
    counts = await repository.count_by_role()
    return DashboardResponse(
        users=await _users_out(list(recent)),
        stats=DashboardStats(
            totalUsers=sum(counts.values()),
            doctors=counts[Role.DOCTOR],
            nurses=counts[Role.NURSE],
            assistants=counts[Role.ASSISTANT],
        ),
    )
