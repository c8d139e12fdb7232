"""Reads and writes of staff accounts, and the users export written by the database."""

from __future__ import annotations

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import dialect, fetch
from bff.users.models import Role, User


async def user_by_id(user_id: int) -> User | None:
    """A user by id."""
    return await User.get_or_none(id=user_id)


async def user_by_username(username: str) -> User | None:
    """A user by (lower-case) username."""
    return await User.get_or_none(username=username)


async def username_taken(username: str, except_id: int | None = None) -> bool:
    """Whether a user other than except_id has username."""
    query = User.filter(username=username)
    if except_id is not None:
        query = query.exclude(id=except_id)
    return await query.exists()


async def any_admin() -> bool:
    """Whether there is an admin."""
    return await User.filter(role=Role.ADMIN).exists()


async def count_with_role(role: Role) -> int:
    """How many users have role."""
    return await User.filter(role=role).count()


async def count_by_role() -> dict[Role, int]:
    """How many users have each role."""
    return {role: await count_with_role(role) for role in Role}


async def users_by_name() -> list[User]:
    """Every user, sorted by name (then id)."""
    return await User.all().order_by("name", "id")


async def first_users_by_name(count: int) -> list[User]:
    """The first count users in the users list's order (by name, then id)."""
    return await User.all().order_by("name", "id").limit(count)


async def create_user(
    conn: BaseDBAsyncClient, name: str, username: str, role: Role, password_hash: str
) -> User:
    """Insert a user inside transaction conn."""
    return await User.create(
        name=name, username=username, role=role, password_hash=password_hash, using_db=conn
    )


async def save_user(conn: BaseDBAsyncClient, user: User, fields: list[str] | None = None) -> None:
    """Write a changed user (all fields, or only `fields`) inside transaction conn."""
    await user.save(using_db=conn, update_fields=fields)


async def delete_user(conn: BaseDBAsyncClient, user: User) -> None:
    """Delete a user (their sessions and assignments go with them) inside transaction conn."""
    await user.delete(using_db=conn)


# Every user with every assignment, written whole by the database as the JSON text of a
# UsersResponse: at the scale volume (15,000 folder assignments) building and serialising an
# object for each in Python took most of the export's time. SQLite: each user's arrays come
# from correlated subqueries (no per-user document is parsed twice), json(...) keeps them
# arrays rather than strings, and json_group_array keeps the order of an ordered subquery.
_USERS_DOCUMENT = {
    "sqlite": """
SELECT json_object('users', json_group_array(json_object(
         'id', u.id, 'userId', u.id, 'name', u.name, 'username', u.username, 'role', u.role,
         'containerAssignments', json((
           SELECT json_group_array(json_object('id', id, 'containerName', container))
             FROM (SELECT ca.id AS id, c.name AS container
                     FROM container_assignments ca JOIN containers c ON c.id = ca.container_id
                    WHERE ca.user_id = u.id
                    ORDER BY c.name, ca.id))),
         'folderAssignments', json((
           SELECT json_group_array(json_object('id', id, 'containerName', container,
                                               'folderName', folder))
             FROM (SELECT fa.id AS id, c.name AS container, f.name AS folder
                     FROM folder_assignments fa JOIN folders f ON f.id = fa.folder_id
                     JOIN containers c ON c.id = f.container_id
                    WHERE fa.user_id = u.id
                    ORDER BY c.name, f.name, fa.id)))))) AS body
  FROM (SELECT id, name, username, role FROM users ORDER BY name, id) u
""",
    "postgres": """
SELECT json_build_object('users', coalesce(json_agg(json_build_object(
         'id', u.id, 'userId', u.id, 'name', u.name, 'username', u.username, 'role', u.role,
         'containerAssignments', coalesce(ca.items, '[]'::json),
         'folderAssignments', coalesce(fa.items, '[]'::json)) ORDER BY u.name, u.id),
       '[]'::json))::text AS body
  FROM users u
  LEFT JOIN (SELECT ca.user_id AS user_id,
                    json_agg(json_build_object('id', ca.id, 'containerName', c.name)
                             ORDER BY c.name, ca.id) AS items
               FROM container_assignments ca JOIN containers c ON c.id = ca.container_id
              GROUP BY ca.user_id) ca ON ca.user_id = u.id
  LEFT JOIN (SELECT fa.user_id AS user_id,
                    json_agg(json_build_object('id', fa.id, 'containerName', c.name,
                                               'folderName', f.name)
                             ORDER BY c.name, f.name, fa.id) AS items
               FROM folder_assignments fa JOIN folders f ON f.id = fa.folder_id
               JOIN containers c ON c.id = f.container_id
              GROUP BY fa.user_id) fa ON fa.user_id = u.id
""",
}


async def users_document() -> str:
    """Every user with every assignment, sorted by name: the JSON text of a UsersResponse."""
    rows = await fetch(_USERS_DOCUMENT[dialect()])
    return str(rows[0]["body"])
