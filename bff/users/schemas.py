"""Request and response shapes of users (spec section 3)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from bff.assignments.schemas import ContainerAssignmentOut, FolderAssignmentOut
from bff.auth.password_rule import MAX_LENGTH as PASSWORD_MAX_LENGTH
from bff.naming import username_error, username_spelling

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


def _username(value: str) -> str:
    spelling = username_spelling(value)
    if error := username_error(spelling):
        raise ValueError(error)
    return spelling


# naming.py's one spelling and rule, as everywhere a username is made (bff/users/bootstrap.py,
# BFF_ADMIN_USERNAME, single sign-on's provisioning) and looked up at sign-in.
Username = Annotated[str, Field(max_length=200), AfterValidator(_username)]
# The rest of the password rule (the minimum length is a setting) is bff/auth/password_rule.py.
Password = Annotated[str, StringConstraints(min_length=1, max_length=PASSWORD_MAX_LENGTH)]
StaffRole = Literal["doctor", "nurse", "assistant"]
AnyRole = Literal["admin", "doctor", "nurse", "assistant"]


class _UserFields(BaseModel):
    """What every shape of a user carries; the password never leaves the server."""

    id: int
    userId: int
    name: str
    username: str
    role: AnyRole
    containerAssignments: list[ContainerAssignmentOut]


class UserOut(_UserFields):
    """A user as the web app sees it, with every folder assigned to them (never the password)."""

    folderAssignments: list[FolderAssignmentOut]


class UserDetail(UserOut):
    """A user on the admin's user page: also whether they have a second factor."""

    secondFactor: bool
    ssoLinked: bool = False  # linked to the identity provider's account (bff/oidc/)
    intake: bool = False  # granted the intake permission (bff/intake/; admins always have it)


class UserResponse(BaseModel):
    """One user."""

    user: UserDetail


class UsersResponse(BaseModel):
    """A list of users."""

    users: list[UserOut]


class UserSummary(_UserFields):
    """A user in the users list: their containers, and how many folders they are assigned.

    The folders themselves are left out: with hundreds of folders a member of staff the full
    list runs to megabytes, and the screens that list users show only the count. One user's
    folders: GET /api/users/{id}; everyone's: GET /api/users/with-assignments.
    """

    folderCount: int
    secondFactor: bool  # an authenticator or a passkey (bff/mfa/)
    intake: bool = False  # granted the intake permission (bff/intake/; admins always have it)


class UserSummariesResponse(BaseModel):
    """The users list."""

    users: list[UserSummary]


class UserCreated(BaseModel):
    """The result of creating a user."""

    message: str
    user: UserOut


class CreateUser(BaseModel):
    """POST /api/auth/register. Admins come from the command line, not the API."""

    name: Name
    username: Username
    password: Password
    role: StaffRole = "doctor"


class UpdateUser(BaseModel):
    """PUT /api/users/{id}; a blank or missing password keeps the current one, a missing
    intake the current intake permission (true grants it, false withdraws it)."""

    name: Name
    username: Username
    role: AnyRole
    password: Annotated[str, Field(max_length=PASSWORD_MAX_LENGTH)] | None = None
    intake: bool | None = None


class Message(BaseModel):
    """A result with a message a person can read."""

    message: str


class DashboardStats(BaseModel):
    """Counts on the admin dashboard."""

    totalUsers: int
    doctors: int
    nurses: int
    assistants: int


class DashboardResponse(BaseModel):
    """Admin dashboard: the 5 most recent users and counts by role."""

    users: list[UserOut]
    stats: DashboardStats
