"""SmartToken administration at the server root: /patients/admin/... (spec section 7)."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import validate_request, validate_response

from bff.auth.policy import ADMIN, allow
from bff.request_context import current_actor
from bff.services import app_services
from bff.tokens import service
from bff.tokens.schemas import (
    AssignedFolders,
    AssignToken,
    DeleteToken,
    ReactivateToken,
    RegisterToken,
    RevokeToken,
    SmartTokenOut,
    TokenAssigned,
    TokenList,
    TokenRegistered,
)
from bff.users.schemas import Message

bp = Blueprint("tokens", __name__, url_prefix="/patients/admin")


class TokenChanged(Message):
    """A transition's message and the token as it is now."""

    token: SmartTokenOut


@bp.post("/register")
@allow(ADMIN, recent_auth=True)
@validate_request(RegisterToken)
@validate_response(TokenRegistered, 201)
async def register_token(data: RegisterToken) -> tuple[TokenRegistered, int]:
    """Register a device as an unclaimed token: with `sun`, an NTAG 424 DNA tag (its URL
    template, SDM offsets and any generated key are shown only here), else a static link."""
    settings = app_services().settings
    return await service.register(data.secureChipId, settings, current_actor(), data.sun), 201


@bp.get("/unclaimed")
@allow(ADMIN)
@validate_response(TokenList)
async def unclaimed_tokens() -> TokenList:
    """Tokens not yet given to a patient."""
    return TokenList(tokens=await service.list_tokens(current_actor(), claimed=False))


@bp.get("/assigned")
@allow(ADMIN)
@validate_response(TokenList)
async def assigned_tokens() -> TokenList:
    """Tokens given to patients: active (assigned) and revoked."""
    return TokenList(tokens=await service.list_tokens(current_actor(), claimed=True))


@bp.get("/assigned-folders/<container>")
@allow(ADMIN)
@validate_response(AssignedFolders)
async def assigned_folders(container: str) -> AssignedFolders:
    """Which folders of a container are linked to a token, and to which."""
    folders = await service.assigned_folders(container, current_actor())
    return AssignedFolders(assignedFolders=folders)


@bp.post("/assign")
@allow(ADMIN, recent_auth=True)
@validate_request(AssignToken)
@validate_response(TokenAssigned)
async def assign_token(data: AssignToken) -> TokenAssigned:
    """Give a token to a patient folder (a folder linked to another token moves to this one)."""
    return await service.assign(data, current_actor())


@bp.post("/revoke")
@allow(ADMIN)
@validate_request(RevokeToken)
@validate_response(TokenChanged)
async def revoke_token(data: RevokeToken) -> TokenChanged:
    """Remote disconnect: the device's link stops working at once."""
    token = await service.revoke(data.tokenId, data.reason, current_actor())
    return TokenChanged(message="Token remotely disconnected successfully", token=token)


@bp.post("/reactivate")
@allow(ADMIN, recent_auth=True)
@validate_request(ReactivateToken)
@validate_response(TokenChanged)
async def reactivate_token(data: ReactivateToken) -> TokenChanged:
    """Make a revoked token work again for its patient."""
    token = await service.reactivate(data.tokenId, current_actor())
    return TokenChanged(message="Token reactivated successfully", token=token)


@bp.delete("/delete/<token_id>")
@allow(ADMIN, recent_auth=True)
@validate_request(DeleteToken)
@validate_response(Message)
async def delete_token(token_id: str, data: DeleteToken) -> Message:
    """Delete a token permanently, with a reason (in the JSON body)."""
    await service.delete(token_id, data.reason, current_actor())
    return Message(message="Token permanently deleted successfully")
