"""Sign-in and session endpoints under /api/auth (spec section 7)."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.assignments.access import caller_assignments
from bff.audit.service import record
from bff.auth import service
from bff.auth.policy import ADMIN, ANY_ROLE, allow, current_principal, public
from bff.auth.schemas import (
    LoginRequest,
    LoginResult,
    LogoutAllResponse,
    LogoutResponse,
    MeResponse,
    TokenUser,
    ValidateResponse,
)
from bff.auth.sessions import end_all_sessions, end_session
from bff.db import transaction
from bff.oidc import repository as oidc
from bff.request_context import client_address, current_actor
from bff.services import app_services
from bff.users import service as users
from bff.users.schemas import CreateUser, UserCreated

bp = Blueprint("auth", __name__, url_prefix="/api/auth")


@bp.post("/login")
@public
@validate_request(LoginRequest)
@validate_response(LoginResult)
async def login(data: LoginRequest) -> LoginResult:
    """Sign in with username and password: a session token or, for a user with a second
    factor, an mfaToken for POST /api/auth/login/mfa (or, for a role that needs a second
    factor and has none, a session restricted to setting one up)."""
    services = app_services()
    result = await service.login(
        data.username, data.password, client_address(), services.settings, services.login_throttle
    )
    return LoginResult(root=result)


@bp.get("/me")
@allow(ANY_ROLE, enrolment=True)
@validate_response(MeResponse)
async def me() -> MeResponse:
    """The signed-in user with their assignments."""
    caller = current_principal()
    mine = await caller_assignments(caller.user_id)
    return MeResponse(user=users.user_out(caller, list(mine.containers), list(mine.folders)))


@bp.get("/validate-token")
@allow(ANY_ROLE)
@validate_response(ValidateResponse)
async def validate_token() -> ValidateResponse:
    """Whether the session token is still valid, with its user."""
    p = current_principal()
    user = TokenUser(id=p.user_id, userId=p.user_id, name=p.name, username=p.username, role=p.role)
    return ValidateResponse(valid=True, user=user)


@bp.post("/logout")
@allow(ANY_ROLE, enrolment=True)
@validate_response(LogoutResponse)
async def logout() -> LogoutResponse:
    """End this session; one opened through the identity provider is told where to sign out
    of the provider too (endSessionUrl)."""
    session_id = current_principal().session_id
    provider = app_services().oidc
    end_session_url = None
    if provider is not None and await oidc.is_provider_session(session_id):
        end_session_url = await provider.end_session_url()
    async with transaction() as conn:
        await end_session(session_id, conn)
        await record(conn, current_actor(), "logout")
    return LogoutResponse(message="Logged out successfully", endSessionUrl=end_session_url)


@bp.post("/logout-all")
@allow(ANY_ROLE)
@validate_response(LogoutAllResponse)
async def logout_all() -> LogoutAllResponse:
    """End every session of the signed-in user, on every device."""
    async with transaction() as conn:
        ended = await end_all_sessions(current_principal().user_id, conn)
        await record(conn, current_actor(), "logout_all", details=f"sessions={ended}")
    return LogoutAllResponse(message="Logged out of all sessions", sessionsEnded=ended)


@bp.post("/register")
@allow(ADMIN, recent_auth=True)
@validate_request(CreateUser)
@validate_response(UserCreated, 201)
async def register(data: CreateUser) -> tuple[UserCreated, int]:
    """Create a doctor, nurse or assistant (admin only)."""
    min_length = app_services().settings.password_min_length
    user = await users.create_user(data, current_actor(), min_length)
    return UserCreated(message="User created successfully", user=user), 201
