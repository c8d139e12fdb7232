"""User management endpoints (admin only): /api/users*, and the admin dashboard."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.auth.policy import ADMIN, allow
from bff.request_context import current_actor
from bff.users import service
from bff.users.schemas import (
    DashboardResponse,
    Message,
    UpdateUser,
    UserResponse,
    UsersResponse,
)

bp = Blueprint("users", __name__, url_prefix="/api")


@bp.get("/users")
@allow(ADMIN)
@validate_response(UsersResponse)
async def list_users() -> UsersResponse:
    """List every user with their assignments."""
    return UsersResponse(users=await service.list_users())


@bp.get("/users/with-assignments")
@allow(ADMIN)
@validate_response(UsersResponse)
async def list_users_with_assignments() -> UsersResponse:
    """List every user with their container and folder assignments."""
    return UsersResponse(users=await service.list_users())


@bp.get("/users/dashboard")
@allow(ADMIN)
@validate_response(DashboardResponse)
async def dashboard() -> DashboardResponse:
    """Admin dashboard data: recent users and counts by role."""
    return await service.dashboard()


@bp.get("/users/<int:user_id>")
@allow(ADMIN)
@validate_response(UserResponse)
async def get_user(user_id: int) -> UserResponse:
    """One user with assignments."""
    return UserResponse(user=await service.get_user(user_id))


@bp.put("/users/<int:user_id>")
@allow(ADMIN)
@validate_request(UpdateUser)
@validate_response(UserResponse)
async def update_user(user_id: int, data: UpdateUser) -> UserResponse:
    """Update a user; changing role or password signs them out everywhere."""
    return UserResponse(user=await service.update_user(user_id, data, current_actor()))


@bp.delete("/users/<int:user_id>")
@allow(ADMIN)
@validate_response(Message)
async def delete_user(user_id: int) -> Message:
    """Delete a user, their sessions and their assignments."""
    name = await service.delete_user(user_id, current_actor())
    return Message(message=f"User {name} deleted successfully")
