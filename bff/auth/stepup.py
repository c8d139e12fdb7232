"""Step-up ("recent authentication"): the rule `@allow(..., recent_auth=True)` applies.

A session may make a sensitive change (a second factor, recovery codes, a password, an admin's
action that can take over another account or destroy data) only within BFF_REAUTH_MINUTES of
proving its password or a factor: signing in counts, and so does POST
/api/auth/confirm-identity (the password or a current code, `mfa.signin.confirm_identity`).
That confirmation also returns a step-up proof: a random value, good once, for
PROOF_SECONDS, for this session only, sent back in the `x-step-up` header (never in a URL).
A request carrying a live proof passes whatever the time since the last proof; with
BFF_REAUTH_MINUTES=0 that is the only way, so every sensitive change carries a confirmation of
its own. Otherwise the answer is 403 with `reauth: true`, which the web app turns into its
"Confirm it's you" dialog and, once confirmed, retries the request with the proof.

When a session last proved itself is read from its database row on every sensitive request,
never from the session cache, so a confirmation on one instance counts at once on every other;
the proofs are rows of `mfa_challenges` (spent by one conditional delete: one use, across
instances too).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from bff.auth import repository
from bff.auth.sessions import Principal
from bff.errors import ApiError
from bff.mfa import repository as challenges
from config.settings import Settings

HEADER = "x-step-up"
PURPOSE = "step-up"
PROOF_SECONDS = 120  # the confirmed request follows its confirmation within 2 minutes
# A restricted session's first enrolment is the rest of its sign-in: like the second sign-in
# step (an mfaToken lives 5 minutes) it may follow the password by this long, even with
# BFF_REAUTH_MINUTES=0, so it stays one step right after sign-in.
ENROLMENT_SECONDS = 300
REAUTH_REQUIRED = "Confirm it's you: enter your password or a code from your authenticator."


def _proof_id(session_id: str, proof: str) -> str:
    return hashlib.sha256(f"{PURPOSE}:{session_id}:{proof}".encode()).hexdigest()


def _window(principal: Principal, settings: Settings) -> timedelta:
    seconds = settings.reauth_minutes * 60
    if principal.restricted:
        seconds = max(seconds, ENROLMENT_SECONDS)
    return timedelta(seconds=seconds)


async def renew(principal: Principal) -> str:
    """The session has just proved its password or a factor: count from now, and return a
    one-use step-up proof for it."""
    now = datetime.now(UTC)
    await repository.set_authenticated_at(principal.session_id, now)
    proof = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=PROOF_SECONDS)
    await challenges.create_challenge(
        _proof_id(principal.session_id, proof), principal.user_id, PURPOSE, expires, now
    )
    return proof


async def require_recent(principal: Principal, settings: Settings, proof: str | None) -> None:
    """Pass a session that proved itself within the window or sends a live proof of its own
    (spent here); else 403 with the step-up marker."""
    now = datetime.now(UTC)
    if proof and await challenges.spend_challenge(_proof_id(principal.session_id, proof), now):
        return
    proved = await repository.authenticated_at(principal.session_id)
    if proved is not None and now - proved < _window(principal, settings):
        return
    raise ApiError(403, REAUTH_REQUIRED, body={"reauth": True})
