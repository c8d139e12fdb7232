"""Single sign-on through an OpenID Provider (authorization code flow with PKCE).

GET /api/auth/oidc/start keeps state, nonce and the PKCE verifier in a signed, short-lived,
HttpOnly cookie bound to the browser and sends it to the provider. The callback checks the
state against that cookie (each state is accepted once), trades the code for the ID token,
checks it in full (bff/oidc/provider.py), finds the user linked to the provider's `sub` (or
links an admin-created user by the username claim, or creates one when provisioning is on),
sets role and name from the claims (a role change ends the user's sessions), and leaves the
sign-in for the web app under a one-time code in the URL's fragment (never sent to a server,
never logged). The web app trades it with POST /api/auth/oidc/complete for exactly what a
password sign-in answers: a session, a restricted session, or the second step (when the
provider did not do multi-factor authentication and the user has a factor).
Every attempt is counted by the one LoginThrottle; every outcome is audited.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from authlib.common.security import generate_token

from bff.audit.service import Actor, record, record_alone
from bff.auth.schemas import (
    EnrolmentLoginResponse,
    LoginResponse,
    MfaRequiredResponse,
    TokenUser,
)
from bff.auth.sessions import (
    end_all_sessions,
    end_session,
    open_session,
    session_id_of,
    user_claims,
)
from bff.auth.throttle import LoginThrottle
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, USERS_CHANGED, publish
from bff.mfa import signin as mfa
from bff.oidc import repository
from bff.oidc.models import OidcHandoff
from bff.oidc.provider import InvalidToken, Provider, ProviderUnavailable
from bff.users import repository as users
from bff.users.models import Role, User
from bff.users.service import find_user
from config.settings import Settings

STATE_SECONDS = 600  # the provider's sign-in must come back within 10 minutes
HANDOFF_SECONDS = 60  # the web app takes the sign-in up at once
STATE_AUDIENCE = "bff-oidc-state"
HANDOFF_EXPIRED = "Your sign-in has expired. Please sign in again."
NOT_CONFIGURED = "Single sign-on is not configured."
NOT_LINKED = "This user is not linked to the identity provider."
ROLE_ORDER = ("admin", "doctor", "nurse", "assistant")  # the first mapped role wins
UNUSABLE_PASSWORD = "!sso"  # noqa: S105 - no password matches it (bff/auth/passwords.py refuses the hash)


class Refused(Exception):
    """A sign-in through the provider ended without one: `reason` goes to the audit log and
    names the message the login page shows (`?sso=<reason>`)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Started:
    """Where to send the browser, and the signed cookie that binds the sign-in to it."""

    url: str
    cookie: str


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


async def start(settings: Settings, provider: Provider) -> Started:
    """Begin a sign-in: new state, nonce and PKCE verifier; the provider's authorization URL."""
    state, nonce, verifier = generate_token(32), generate_token(32), generate_token(48)
    try:
        url = await provider.authorization_url(state, nonce, verifier)
    except ProviderUnavailable:
        raise Refused("unavailable") from None
    now = datetime.now(UTC)
    cookie = jwt.encode(
        {
            "aud": STATE_AUDIENCE,
            "state": state,
            "nonce": nonce,
            "verifier": verifier,
            "exp": int((now + timedelta(seconds=STATE_SECONDS)).timestamp()),
        },
        settings.signing_key(),
        algorithm="HS256",
    )
    return Started(url, cookie)


def _pending(cookie: str | None, state: str, settings: Settings) -> dict[str, Any]:
    """The sign-in the cookie holds, if its state is the one that came back."""
    if not cookie or not state:
        raise Refused("bad_state", "no state or cookie")
    try:
        pending = jwt.decode(
            cookie, settings.signing_key(), algorithms=["HS256"], audience=STATE_AUDIENCE
        )
    except jwt.PyJWTError:
        raise Refused("bad_state", "cookie invalid or expired") from None
    if not secrets.compare_digest(str(pending.get("state", "")), state):
        raise Refused("bad_state", "state mismatch")
    return pending


def mapped_role(claims: dict[str, Any], settings: Settings) -> Role | None:
    """The role BFF_OIDC_ROLE_MAP gives the claim's values (the highest mapped), or None."""
    value = claims.get(settings.oidc_role_claim)
    values = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else set()
    values = {v for v in values if isinstance(v, str)}
    granted = {role for role, claim in settings.oidc_roles if claim in values}
    for role in ROLE_ORDER:
        if role in granted:
            return Role(role)
    return None


def provider_did_mfa(claims: dict[str, Any], settings: Settings) -> bool:
    """Whether the ID token's amr or acr says the provider did multi-factor authentication."""
    amr_values = {v.strip() for v in settings.oidc_mfa_amr.split(",") if v.strip()}
    acr_values = {v.strip() for v in settings.oidc_mfa_acr.split(",") if v.strip()}
    amr = claims.get("amr")
    if isinstance(amr, list) and amr_values & {v for v in amr if isinstance(v, str)}:
        return True
    return isinstance(claims.get("acr"), str) and claims["acr"] in acr_values


def _claim_text(claims: dict[str, Any], name: str, limit: int) -> str:
    value = claims.get(name)
    return value.strip()[:limit] if isinstance(value, str) else ""


async def _account(claims: dict[str, Any], settings: Settings, issuer: str) -> tuple[User, bool]:
    """The user for the token's subject, linked or created, with role and name updated from
    the claims; and whether the role changed."""
    subject = claims["sub"]
    role = mapped_role(claims, settings)
    if role is None:
        raise Refused("no_role", f"subject={subject[:80]}")
    name = _claim_text(claims, settings.oidc_name_claim, 100)
    user_id = await repository.linked_user_id(issuer, subject)
    async with transaction() as conn:
        if user_id is not None:
            user = await find_user(user_id)
        else:
            username = _claim_text(claims, settings.oidc_username_claim, 50).lower()
            found = await users.user_by_username(username) if username else None
            if found is not None and await repository.is_linked(found.id, issuer):
                # Linked to another subject of this provider: never taken over by a username.
                raise Refused("unknown_user", f"username={username} linked to another subject")
            if found is None and settings.oidc_provision == "off":
                raise Refused("unknown_user", f"username={username[:50]}")
            if found is None:
                if not username or await users.username_taken(username):
                    raise Refused("unknown_user", "no usable username claim")
                found = await users.create_user(
                    conn, name or username, username, role, UNUSABLE_PASSWORD
                )
                await record(
                    conn,
                    Actor(None, "single sign-on", "", ""),
                    "user_create",
                    details=f"user={username} role={role.value} method=oidc",
                )
            await repository.link(conn, found.id, issuer, subject)
            user = found
        changed = user.role != role
        if changed or (name and name != user.name):
            user.role = role
            user.name = name or user.name
            await users.save_user(conn, user, ["role", "name", "updated_at"])
            publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        if changed:
            await end_all_sessions(user.id, conn, reason="account-changed")
    return user, changed


async def _before_exchange(
    params: dict[str, str], cookie: str | None, settings: Settings
) -> tuple[dict[str, Any], str]:
    """The checks of a callback that need no provider: its error, the state (once), the code."""
    if params.get("error"):
        raise Refused("provider_error", params["error"][:60])
    pending = _pending(cookie, params.get("state", ""), settings)
    now = datetime.now(UTC)
    state_mark = _hash("state:" + pending["state"])
    if not await repository.use_once(state_mark, now + timedelta(seconds=STATE_SECONDS), now):
        raise Refused("bad_state", "state used before")
    code = params.get("code", "")
    if not code:
        raise Refused("invalid_token", "no code")
    return pending, code


async def callback(
    params: dict[str, str],
    cookie: str | None,
    address: str,
    settings: Settings,
    provider: Provider,
    throttle: LoginThrottle,
) -> str:
    """Finish the provider's part of a sign-in; return the one-time code for the web app.
    Raises Refused (audited as login_failed) when no sign-in results."""
    subject = ""
    try:
        # Counted before the checks, per address (never one count for every address: a flood
        # from anywhere must not slow everyone's sign-in). Refusals decided here, before the
        # provider is asked (its own error, a state used before or forged, no code: a browser's
        # Back or reload), are given back: nothing was guessed or spent, and a hospital's staff
        # behind one address must not lock each other out by reloading a page.
        async with throttle.attempt("oidc:" + address, address) as attempt:
            try:
                pending, code = await _before_exchange(params, cookie, settings)
            except Refused:
                await throttle.release(attempt)
                raise
            try:
                id_token = await provider.exchange(code, pending["verifier"])
                claims = await provider.id_token_claims(id_token, pending["nonce"])
            except InvalidToken as exc:
                raise Refused("invalid_token", str(exc)) from None
            except ProviderUnavailable:
                await throttle.release(attempt)  # the provider's outage is nobody's attempt
                raise
            subject = claims["sub"]
            await throttle.release(attempt)
        async with throttle.attempt("oidc:" + subject, address) as attempt:
            user, _ = await _account(claims, settings, provider.issuer)
            await attempt.succeeded()
    except Refused as refused:
        actor = Actor(None, ("oidc:" + subject)[:100], "", address)
        details = f"method=oidc reason={refused.reason} {refused.detail}".strip()
        await record_alone(actor, "login_failed", details=details[:500])
        raise
    except ProviderUnavailable as exc:
        await record_alone(
            Actor(None, "oidc:", "", address),
            "login_failed",
            details=f"method=oidc reason=unavailable {exc}"[:500],
        )
        raise Refused("unavailable") from None
    except ApiError as exc:
        if exc.status == 429:
            raise Refused("busy") from None
        raise
    code = secrets.token_urlsafe(32)
    await repository.create_handoff(
        None,
        OidcHandoff(
            id=_hash(code),
            user_id=user.id,
            issuer=provider.issuer,
            subject=subject,
            provider_sid=_claim_text(claims, "sid", 255),
            mfa=provider_did_mfa(claims, settings),
            expires_at=datetime.now(UTC) + timedelta(seconds=HANDOFF_SECONDS),
        ),
    )
    return code


async def complete(
    code: str, address: str, settings: Settings
) -> LoginResponse | MfaRequiredResponse:
    """Trade the callback's one-time code for what a password sign-in answers."""
    handoff = await repository.take_handoff(_hash(code), datetime.now(UTC))
    if handoff is None:
        raise ApiError(401, HANDOFF_EXPIRED)
    user = await find_user(handoff.user_id)
    if not handoff.mfa and await mfa.has_factor(user.id):
        origin = mfa.ProviderSignIn(handoff.issuer, handoff.subject, handoff.provider_sid)
        mfa_token, methods = await mfa.start_second_step(user, origin)
        return MfaRequiredResponse(mfaRequired=True, mfaToken=mfa_token, methods=methods)
    restricted = not handoff.mfa and user.role.value in settings.mfa_roles
    async with transaction() as conn:
        token = await open_session(user, settings, address, conn, restricted=restricted)
        await repository.record_session(
            conn, session_id_of(token), handoff.issuer, handoff.subject, handoff.provider_sid
        )
        await record(
            conn,
            Actor(user.id, user.name, user.role.value, address),
            "login",
            details=f"method=oidc subject={handoff.subject[:200]} mfa={handoff.mfa}",
        )
    claims = TokenUser.model_validate(user_claims(user))
    if restricted:
        return EnrolmentLoginResponse(token=token, user=claims, mfaEnrolmentRequired=True)
    return LoginResponse(token=token, user=claims)


async def backchannel_logout(logout_token: str, address: str, provider: Provider) -> int:
    """End every session of the logout token's subject (or, with only a sid, of that provider
    session); how many ended. 400 for a token that fails a check or was used before."""
    try:
        claims = await provider.logout_token_claims(logout_token)
    except InvalidToken as exc:
        await record_alone(
            Actor(None, "oidc:", "", address),
            "logout",
            details=f"method=backchannel refused={exc}"[:500],
        )
        raise ApiError(400, "The logout token is not valid.") from None
    except ProviderUnavailable:
        raise ApiError(503, "The identity provider cannot be reached.") from None
    now = datetime.now(UTC)
    jti_mark = _hash(f"jti:{provider.issuer}\n{claims['jti']}")
    if not await repository.use_once(jti_mark, now + timedelta(days=1), now):
        raise ApiError(400, "The logout token has been used before.")
    ended = 0
    subject = claims.get("sub")
    user_id = (
        await repository.linked_user_id(provider.issuer, subject)
        if isinstance(subject, str)
        else None
    )
    async with transaction() as conn:
        if user_id is not None:
            user = await find_user(user_id)
            ended = await end_all_sessions(user.id, conn, reason="logout")
            actor = Actor(user.id, user.name, user.role.value, address)
            await record(conn, actor, "logout_all", details=f"method=backchannel sessions={ended}")
        elif isinstance(claims.get("sid"), str):
            for session_id, owner in await repository.sessions_of_sid(
                provider.issuer, claims["sid"]
            ):
                await end_session(session_id, conn)
                ended += 1
                who = await find_user(owner)
                actor = Actor(who.id, who.name, who.role.value, address)
                await record(conn, actor, "logout", details="method=backchannel")
    return ended


async def unlink(user_id: int, actor: Actor) -> None:
    """Remove a user's link to the provider (they sign in by it again only once linked anew:
    by their username at their next sign-in); audited."""
    user = await find_user(user_id)
    async with transaction() as conn:
        removed = await repository.unlink(conn, user.id)
        if not removed:
            raise ApiError(404, NOT_LINKED)
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        await record(
            conn, actor, "user_update", details=f"user={user.username} changed=sso-unlinked"
        )
