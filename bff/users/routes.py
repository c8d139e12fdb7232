"""User management endpoints (admin only): /api/users*, and the admin dashboard."""

from __future__ import annotations

from quart import Blueprint, Response
from quart_schema import document_response, validate_request, validate_response

from bff.auth.policy import ADMIN, allow
from bff.mfa import service as mfa
from bff.request_context import current_actor
from bff.services import app_services
from bff.users import service
from bff.users.schemas import (
    DashboardResponse,
    Message,
    UpdateUser,
    UserResponse,
    UsersResponse,
    UserSummariesResponse,
)

bp = Blueprint("users", __name__, url_prefix="/api")


@bp.get("/users")
@allow(ADMIN)
@validate_response(UserSummariesResponse)
async def list_users() -> UserSummariesResponse:
    """List every user with their containers and the number of folders assigned to them."""
    return UserSummariesResponse(users=await service.list_users())


@bp.get("/users/with-assignments")
@allow(ADMIN)
@document_response(UsersResponse)
async def list_users_with_assignments() -> Response:
    """List every user with all their container and folder assignments (large at scale)."""
    # Written by the service as JSON text (1 MB at the scale volume); a test holds it to the model.
    return Response(await service.users_with_assignments_json(), content_type="application/json")


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
@allow(ADMIN, recent_auth=True)
@validate_request(UpdateUser)
@validate_response(UserResponse)
async def update_user(user_id: int, data: UpdateUser) -> UserResponse:
    """Update a user; changing role or password signs them out everywhere."""
    min_length = app_services().settings.password_min_length
    return UserResponse(user=await service.update_user(user_id, data, current_actor(), min_length))


@bp.delete("/users/<int:user_id>")
@allow(ADMIN, recent_auth=True)
@validate_response(Message)
async def delete_user(user_id: int) -> Message:
    """Delete a user, their sessions and their assignments."""
    name = await service.delete_user(user_id, current_actor())
    return Message(message=f"User {name} deleted successfully")


@bp.delete("/users/<int:user_id>/mfa")
@allow(ADMIN, recent_auth=True)
@validate_response(Message)
async def reset_second_factor(user_id: int) -> Message:
    """Remove every second factor of a user (a lost phone) and end their sessions."""
    name = await mfa.reset(user_id, current_actor())
    return Message(message=f"Second factor reset for {name}")
