"""Single sign-on through an OpenID Provider (authorization code flow with PKCE).

GET /api/auth/oidc/start keeps state, nonce and the PKCE verifier in a signed, short-lived,
HttpOnly cookie and sends the browser to the provider; a second HttpOnly cookie names the
browser itself (kept a month). The callback checks the state against the first cookie (each
state is accepted once), trades the code for the ID token and checks it in full
(bff/oidc/provider.py). Then the subject (`sub`) decides, never a claim on its own:
- linked to an account: that account, its role and name set from the claims (a role change
  ends its sessions), except an admin account, which claims never change;
- not linked, provisioning on, and the username claim (naming.py's rule) names no account: a
  new account (a claim that breaks the rule gets a generated username);
- otherwise no sign-in: the browser gets an offer to link an account, by the one-time link
  code an admin issued for it ("link at next sign-in": `expect`, `link_by_code`) or by proving
  it (its password, and its second factor if it has one: `link_by_password`), and the page
  says to ask an administrator, who can also pick the subject from those seen (`sso_account`,
  `bind`).
A sign-in is left for the web app under a one-time code in the URL's fragment (never sent to a
server, never logged), which only the browser that started it can trade (its cookie's hash is
stored with the code) with POST /api/auth/oidc/complete for what a password sign-in answers: a
session, a restricted session, or the second step (when the provider did not do multi-factor
authentication and the user has a factor).

Every attempt is counted by the one LoginThrottle (per browser until the token names the
subject, then per subject: bff/auth/throttle.py); every outcome is audited, a refusal anyone
can repeat once a minute with its count (`record_repeated`).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from authlib.common.security import generate_token
from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, record, record_repeated
from bff.auth import service as passwords
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
from bff.naming import is_invisible, username_error, username_spelling
from bff.oidc import repository
from bff.oidc.models import OidcHandoff, OidcLinkOffer
from bff.oidc.provider import InvalidToken, Provider, ProviderUnavailable
from bff.oidc.schemas import SeenSubject, UserSso
from bff.users import repository as users
from bff.users.models import Role, User
from bff.users.service import find_user
from config.settings import Settings

STATE_SECONDS = 600  # the provider's sign-in must come back within 10 minutes
HANDOFF_SECONDS = 60  # the web app takes the sign-in up at once
OFFER_SECONDS = 300  # a person not linked has 5 minutes to prove their account
BROWSER_SECONDS = 30 * 24 * 3600  # the browser cookie: as long as the throttle knows a browser
EXPECT_DAYS = 7  # an admin's "link at next sign-in" holds this long (the command line: --days)
# A link code: 16 characters without look-alikes (no 0 O 1 I), 80 bits, read in groups of 4
LINK_CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LINK_CODE_LENGTH = 16
LINK_CODE_GROUP = 4
SEEN_DAYS = 7  # subjects seen without a link are offered to admins this long
SEEN_SHOWN = 20  # at most this many of them
STATE_AUDIENCE = "bff-oidc-state"
HANDOFF_EXPIRED = "Your sign-in has expired. Please sign in again."
OTHER_BROWSER = "This sign-in was started in another browser. Please sign in again here."
NOT_CONFIGURED = "Single sign-on is not configured."
NOT_LINKED = "This user is not linked to the identity provider."
ASK_ADMIN = "Ask an administrator to link your account."
NOT_EXPECTED = "No link at next sign-in is pending for this user."
BAD_LINK_CODE = (
    "This link code is not valid: it may be mistyped, used or expired, or replaced by a newer "
    "one. Check it, or ask an administrator for a new one."
)
ROLE_ORDER = ("admin", "doctor", "nurse", "assistant")  # the first mapped role wins
UNUSABLE_PASSWORD = "!sso"  # noqa: S105 - no password matches it (bff/auth/passwords.py refuses the hash)
BROWSER_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
SYSTEM = Actor(None, "single sign-on", "", "")


class Refused(Exception):
    """A sign-in through the provider ended without one: `reason` goes to the audit log and
    names the message the login page shows (`?sso=<reason>`)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Started:
    """Where to send the browser, the signed cookie that binds the sign-in to it, and the
    browser's own cookie (kept, or new)."""

    url: str
    cookie: str
    browser: str


@dataclass(frozen=True)
class Answer:
    """What the callback leaves for the web app: a sign-in (`link` False) or an offer to link
    an account (`link` True), under a one-time code."""

    code: str
    link: bool


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def new_link_code() -> str:
    """A fresh link code as the admin hands it on: 16 characters of LINK_CODE_ALPHABET (80 bits)
    in groups of 4, e.g. `7KQM-X3VB-9RTD-HW2C`."""
    chars = "".join(secrets.choice(LINK_CODE_ALPHABET) for _ in range(LINK_CODE_LENGTH))
    groups = range(0, LINK_CODE_LENGTH, LINK_CODE_GROUP)
    return "-".join(chars[i : i + LINK_CODE_GROUP] for i in groups)


def link_code_hash(typed: str) -> str:
    """The stored hash of a link code as a person typed it (case, spaces and dashes as they
    come: `7kqm x3vb-9rtd hw2c` is the same code); "" for text that cannot be a link code."""
    spelled = "".join(unicodedata.normalize("NFKC", typed).upper().split()).replace("-", "")
    if len(spelled) != LINK_CODE_LENGTH or any(c not in LINK_CODE_ALPHABET for c in spelled):
        return ""
    return _hash("link-code:" + spelled)


def browser_value(cookie: str | None) -> str | None:
    """The browser cookie's value if it is one this portal set, else None."""
    return cookie if cookie and BROWSER_VALUE.fullmatch(cookie) else None


def _throttle_key(kind: str, value: str) -> str:
    # Hashed: a browser's cookie never lands in Redis, and a subject (case-sensitive, any
    # characters) is one key whatever the throttle's spelling of usernames does to text.
    return f"oidc-{kind}:{_hash(value)[:32]}"


def browser_key(browser: str) -> str:
    """The throttle's key of a browser (the value of its `/start` cookie, `browser_value`)."""
    return _throttle_key("browser", browser)


async def start(settings: Settings, provider: Provider, browser: str | None) -> Started:
    """Begin a sign-in: new state, nonce and PKCE verifier; the provider's authorization URL;
    the browser's cookie kept (or a new one)."""
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
    return Started(url, cookie, browser_value(browser) or secrets.token_urlsafe(32))


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


def mapped_roles(claims: dict[str, Any], settings: Settings) -> set[Role]:
    """Every role BFF_OIDC_ROLE_MAP gives the claim's values."""
    value = claims.get(settings.oidc_role_claim)
    values = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else set()
    values = {v for v in values if isinstance(v, str)}
    return {Role(role) for role, claim in settings.oidc_roles if claim in values}


def _highest(roles: set[Role]) -> Role | None:
    for role in ROLE_ORDER:
        if Role(role) in roles:
            return Role(role)
    return None


def mapped_role(claims: dict[str, Any], settings: Settings) -> Role | None:
    """The role BFF_OIDC_ROLE_MAP gives the claim's values (the highest mapped), or None."""
    return _highest(mapped_roles(claims, settings))


def provider_did_mfa(claims: dict[str, Any], settings: Settings) -> bool:
    """Whether the ID token's amr or acr says the provider did multi-factor authentication."""
    amr_values = {v.strip() for v in settings.oidc_mfa_amr.split(",") if v.strip()}
    acr_values = {v.strip() for v in settings.oidc_mfa_acr.split(",") if v.strip()}
    amr = claims.get("amr")
    if isinstance(amr, list) and amr_values & {v for v in amr if isinstance(v, str)}:
        return True
    return isinstance(claims.get("acr"), str) and claims["acr"] in acr_values


def _claim_text(claims: dict[str, Any], name: str, limit: int) -> str:
    """A text claim as sent (without the spaces around it), cut to limit."""
    value = claims.get(name)
    return value.strip()[:limit] if isinstance(value, str) else ""


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs") or is_invisible(char)


def _shown(text: str) -> str:
    """Text a person will read (a name, a claim shown to an admin): control and invisible
    characters written out as \\uXXXX, so 'dr.demo' with a zero-width space never reads as
    'dr.demo'."""
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in text)


def _display_name(claims: dict[str, Any], settings: Settings) -> str:
    """The name claim as an account's name: without control or invisible characters."""
    name = _claim_text(claims, settings.oidc_name_claim, 200)
    return "".join(c for c in name if not _hidden(c)).strip()[:100]


async def _generated_username(issuer: str, subject: str) -> str:
    """A username for a subject whose username claim breaks the rule: `sso-` and hex digits
    of the subject's hash (looks like nobody, an admin can rename it)."""
    digest = _hash(f"{issuer}\n{subject}")
    for length in (8, 12, 16, 24, 32):
        username = "sso-" + digest[:length]
        if not await users.username_taken(username):
            return username
    raise Refused("unknown_user", "no free generated username")


async def _provision(
    conn: Any, claims: dict[str, Any], role: Role, settings: Settings, issuer: str
) -> User | None:
    """A new account for a subject whose username claim names none (provisioning on), linked
    to it; None when the claim names an existing account (never merged into it)."""
    subject = claims["sub"]
    claimed = _claim_text(claims, settings.oidc_username_claim, 100)
    spelling = username_spelling(claimed)
    if username_error(spelling) is None:
        if await users.username_taken(spelling):
            return None  # someone's account: linked by an admin or its owner's password only
        username = spelling
    else:
        username = await _generated_username(issuer, subject)
    name = _display_name(claims, settings) or username
    user = await users.create_user(conn, name, username, role, UNUSABLE_PASSWORD)
    refused = "" if username == spelling else " username_claim_refused"
    await record(
        conn,
        SYSTEM,
        "user_create",
        details=f"user={username} role={role.value} method=oidc subject={subject[:100]}{refused}",
    )
    await repository.link(conn, user.id, issuer, subject)
    publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return user


async def _apply_claims(conn: Any, user: User, roles: set[Role], name: str) -> None:
    """Set a linked account's role and name from the claims (a role change ends its
    sessions). An admin account is never changed by claims: it signs in only while they
    still map to admin; an account that is not an admin never becomes one by claims."""
    if user.role == Role.ADMIN:
        if Role.ADMIN not in roles:
            raise Refused("admin_role", f"user={user.username} claims no admin")
        return
    role = _highest(roles - {Role.ADMIN})
    if role is None:
        raise Refused("admin_role", f"user={user.username} claims admin only")
    changed = user.role != role
    if changed or (name and name != user.name):
        user.role = role
        user.name = name or user.name
        await users.save_user(conn, user, ["role", "name", "updated_at"])
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    if changed:
        await end_all_sessions(user.id, conn, reason="account-changed")


async def _account(
    claims: dict[str, Any], settings: Settings, issuer: str, address: str
) -> User | None:
    """The account of the token's subject (linked, or created), with role and name updated
    from the claims; None when none is linked (no claim picks an account)."""
    subject = claims["sub"]
    roles = mapped_roles(claims, settings)
    if not roles:
        raise Refused("no_role", f"subject={subject[:80]}")
    name = _display_name(claims, settings)
    for again in (False, True):
        try:
            async with transaction() as conn:
                # Looked up inside the transaction (SQLite: behind its write lock), and again
                # when the username claim turns out taken: a first sign-in of this subject
                # committed meanwhile (two tabs) has linked it.
                user_id = await repository.linked_user_id(issuer, subject)
                if user_id is None and settings.oidc_provision == "on":
                    # Never an admin account from claims: that takes an admin's action.
                    role = _highest(roles - {Role.ADMIN})
                    if role is None:
                        raise Refused("admin_role", f"subject={subject[:80]} claims admin only")
                    created = await _provision(conn, claims, role, settings, issuer)
                    if created is not None:
                        return created  # with the claims' role and name
                    user_id = await repository.linked_user_id(issuer, subject)
                if user_id is None:
                    return None  # the offer to link (the username is someone else's)
                user = await find_user(user_id)
                await _apply_claims(conn, user, roles, name)
                return user
        except IntegrityError:
            # Two first sign-ins at once: the other created this username or linked this
            # subject after this one looked. Look again, seeing what it committed.
            if again:
                raise Refused("busy", f"subject={subject[:80]} created meanwhile") from None
    raise AssertionError  # unreachable: the second round returns or raises


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


async def _refused(subject: str, address: str, reason: str, detail: str) -> None:
    """Audit a sign-in through the provider that ended without one (repeats counted)."""
    actor = Actor(None, ("oidc:" + subject)[:100], "", address)
    details = f"method=oidc reason={reason} {detail}".strip()[:500]
    await record_repeated(actor, "login_failed", reason=reason, details=details)


async def callback(
    params: dict[str, str],
    cookie: str | None,
    browser: str | None,
    address: str,
    settings: Settings,
    provider: Provider,
    throttle: LoginThrottle,
) -> Answer:
    """Finish the provider's part of a sign-in: a one-time code for the web app to take the
    sign-in up, or to link an account. Raises Refused (audited as login_failed) otherwise."""
    subject = ""
    try:
        if params.get("error"):  # the provider's own refusal: nothing to check or count
            raise Refused("provider_error", params["error"][:60])
        browser = browser_value(browser)
        if browser is None:
            raise Refused("bad_state", "no browser cookie")
        # The browser's attempt, counted as an account's would be (bff/auth/throttle.py):
        # what only its code's check can tell (a code the provider refuses, a token that fails)
        # counts against that browser alone, never the address: such a code guessed nothing
        # anyone else holds, and must not spend the budget of everyone behind the address.
        # Refusals decided before the provider is asked (its own error, a state used before or
        # forged: a browser's Back or reload) are given back, and so is a provider's outage.
        first_key = browser_key(browser)
        async with throttle.attempt(first_key, address, by_address=False) as first:
            try:
                pending, code = await _before_exchange(params, cookie, settings)
            except Refused:
                await throttle.release(first)
                raise
            try:
                id_token = await provider.exchange(code, pending["verifier"])
                claims = await provider.id_token_claims(id_token, pending["nonce"])
            except InvalidToken as exc:
                raise Refused("invalid_token", str(exc)) from None
            except ProviderUnavailable:
                await throttle.release(first)  # the provider's outage is nobody's attempt
                raise
            subject = claims["sub"]
            await throttle.release(first)
        # The subject's attempt: a refusal after the provider vouched for the person (no role,
        # no link) guessed nothing and is given back.
        second_key = _throttle_key("subject", subject)
        async with throttle.attempt(second_key, address, by_address=False) as second:
            try:
                user = await _account(claims, settings, provider.issuer, address)
            except Refused:
                await throttle.release(second)
                raise
            if user is None:
                await throttle.release(second)
            else:
                await second.succeeded()
        if user is not None:
            await first.succeeded()  # the browser is known at this address from now on
    except Refused as refused:
        await _refused(subject, address, refused.reason, refused.detail)
        raise
    except ProviderUnavailable as exc:
        await _refused(subject, address, "unavailable", str(exc))
        raise Refused("unavailable") from None
    except ApiError as exc:
        if exc.status == 429:
            await _refused(subject, address, "busy", "")
            raise Refused("busy") from None
        raise
    code = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    sid = _claim_text(claims, "sid", 255)
    did_mfa = provider_did_mfa(claims, settings)
    if user is None:
        await repository.create_offer(
            OidcLinkOffer(
                id=_hash(code),
                issuer=provider.issuer,
                subject=subject,
                provider_sid=sid,
                mfa=did_mfa,
                browser=_hash(browser),
                expires_at=now + timedelta(seconds=OFFER_SECONDS),
            )
        )
        await repository.saw(
            provider.issuer,
            subject,
            _shown(_claim_text(claims, settings.oidc_username_claim, 100))[:100],
            _shown(_claim_text(claims, settings.oidc_name_claim, 100))[:100],
            now,
            now - timedelta(days=SEEN_DAYS),
        )
        await _refused(subject, address, "not_linked", f"subject={subject[:200]}")
        return Answer(code, link=True)
    await repository.create_handoff(
        None,
        OidcHandoff(
            id=_hash(code),
            user_id=user.id,
            issuer=provider.issuer,
            subject=subject,
            provider_sid=sid,
            mfa=did_mfa,
            browser=_hash(browser),
            expires_at=now + timedelta(seconds=HANDOFF_SECONDS),
        ),
    )
    return Answer(code, link=False)


def _same_browser(stored: str, browser: str | None) -> bool:
    value = browser_value(browser)
    return value is not None and secrets.compare_digest(stored, _hash(value))


async def _signed_in(
    user: User,
    origin: mfa.ProviderSignIn,
    provider_mfa: bool,
    address: str,
    settings: Settings,
    conn: Any,
) -> LoginResponse:
    """Open the session of a sign-in through the provider, recorded as the provider's, and
    audit it, inside transaction conn."""
    restricted = not provider_mfa and user.role.value in settings.mfa_roles
    token = await open_session(user, settings, address, conn, restricted=restricted)
    await repository.record_session(
        conn, session_id_of(token), origin.issuer, origin.subject, origin.provider_sid
    )
    await record(
        conn,
        Actor(user.id, user.name, user.role.value, address),
        "login",
        details=f"method=oidc subject={origin.subject[:200]} mfa={provider_mfa}",
    )
    claims = TokenUser.model_validate(user_claims(user))
    if restricted:
        return EnrolmentLoginResponse(token=token, user=claims, mfaEnrolmentRequired=True)
    return LoginResponse(token=token, user=claims)


async def complete(
    code: str, browser: str | None, address: str, settings: Settings
) -> LoginResponse | MfaRequiredResponse:
    """Trade the callback's one-time code for what a password sign-in answers, in the browser
    that started the sign-in only (401 elsewhere: a link to /login#sso=... sent to someone
    else signs nobody in)."""
    handoff = await repository.live_handoff(_hash(code), datetime.now(UTC))
    if handoff is None:
        raise ApiError(401, HANDOFF_EXPIRED)
    if not _same_browser(handoff.browser, browser):
        await _refused(handoff.subject, address, "other_browser", "complete")
        raise ApiError(401, OTHER_BROWSER)
    if not await repository.take_handoff(handoff.id):
        raise ApiError(401, HANDOFF_EXPIRED)  # taken by a simultaneous request
    user = await find_user(handoff.user_id)
    origin = mfa.ProviderSignIn(handoff.issuer, handoff.subject, handoff.provider_sid)
    if not handoff.mfa and await mfa.has_factor(user.id):
        mfa_token, methods = await mfa.start_second_step(user, origin)
        return MfaRequiredResponse(mfaRequired=True, mfaToken=mfa_token, methods=methods)
    async with transaction() as conn:
        return await _signed_in(user, origin, handoff.mfa, address, settings, conn)


async def _offer_here(code: str, browser: str | None, address: str, how: str) -> OidcLinkOffer:
    """The live offer to link stored under code, if this is the browser that started its
    sign-in: 401 otherwise (expired, used, or another browser's, audited)."""
    offer = await repository.live_offer(_hash(code), datetime.now(UTC))
    if offer is None:
        raise ApiError(401, HANDOFF_EXPIRED)
    if not _same_browser(offer.browser, browser):
        await _refused(offer.subject, address, "other_browser", how)
        raise ApiError(401, OTHER_BROWSER)
    return offer


def _link_refusal(user: User, refused: bool, linked: bool) -> ApiError | None:
    """Why user's account cannot be linked to the provider's subject (refused: an admin's, or
    one this way may not link; linked: it has a subject of this provider already), or None."""
    if user.role == Role.ADMIN or refused:
        return ApiError(403, "This account cannot be linked this way. " + ASK_ADMIN)
    if linked:
        return ApiError(409, "This account is linked to another sign-in. " + ASK_ADMIN)
    return None


async def _link_and_sign_in(
    user: User,
    offer: OidcLinkOffer,
    second_step: bool,
    by: str,
    address: str,
    settings: Settings,
    code: tuple[str, datetime] | None = None,
) -> LoginResponse | MfaRequiredResponse:
    """The offer used up, link its subject to user's account (by: how the account was proved;
    code: the link code's hash and the time it was checked at, used up in the same
    transaction) and sign in; or, second_step, ask for the account's factor first (linked once
    it is proved: bff/mfa/signin.py). The provider's amr or acr is trusted at the sign-in that
    links only when a password proved the account."""
    if not await repository.take_offer(offer.id):
        raise ApiError(401, HANDOFF_EXPIRED)  # used by a simultaneous request
    origin = mfa.ProviderSignIn(
        offer.issuer,
        offer.subject,
        offer.provider_sid,
        link=True,
        link_code="" if code is None else code[0],
    )
    if second_step:
        mfa_token, methods = await mfa.start_second_step(user, origin)
        return MfaRequiredResponse(mfaRequired=True, mfaToken=mfa_token, methods=methods)
    try:
        async with transaction() as conn:
            if code is not None and not await repository.take_code(conn, user.id, *code):
                raise ApiError(400, mfa.LINK_CODE_GONE)
            await repository.link(conn, user.id, offer.issuer, offer.subject)
            await record(
                conn,
                Actor(user.id, user.name, user.role.value, address),
                "user_update",
                details=(
                    f"user={user.username} changed=sso-linked by={by} subject={offer.subject[:200]}"
                ),
            )
            publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
            provider_mfa = offer.mfa and code is None
            return await _signed_in(user, origin, provider_mfa, address, settings, conn)
    except IntegrityError:  # the subject was linked meanwhile
        raise ApiError(409, mfa.LINKED_MEANWHILE) from None


async def link_by_password(
    code: str,
    username: str,
    password: str,
    browser: str | None,
    address: str,
    settings: Settings,
    throttle: LoginThrottle,
) -> LoginResponse | MfaRequiredResponse:
    """A person the provider vouched for, whose subject is linked to no account, proves a
    local account (its password, counted as a sign-in attempt, then its second factor if it
    has one: the second step) and so links it, and is signed in. Never an admin account, nor
    one whose password may not sign in (BFF_OIDC_LOCAL_PASSWORDS), nor one linked already."""
    offer = await _offer_here(code, browser, address, "link")
    async with passwords.checked_password(
        username, password, address, throttle, method="oidc-link"
    ) as (user, attempt, second_step):
        refusal = _link_refusal(
            user,
            passwords.password_refused(user.role.value, settings) is not None,
            await repository.is_linked(user.id, offer.issuer),
        )
        if refusal is not None or second_step:
            await throttle.release(attempt)  # the password was right; a code may follow
        else:
            await attempt.succeeded()
    if refusal is not None:
        actor = Actor(user.id, user.name, user.role.value, address)
        await record_repeated(
            actor,
            "login_failed",
            reason="link_refused",
            details=f"method=oidc-link reason=link_refused subject={offer.subject[:200]}",
        )
        raise refusal
    return await _link_and_sign_in(user, offer, second_step, "password", address, settings)


async def link_by_code(
    code: str,
    link_code: str,
    browser: str | None,
    address: str,
    settings: Settings,
    throttle: LoginThrottle,
) -> LoginResponse | MfaRequiredResponse:
    """A person the provider vouched for, whose subject is linked to no account, enters the
    link code an admin issued for their account (`expect`), then its second factor if it has
    one (whatever the provider's amr or acr says: this sign-in links); then the subject is
    linked to that account (the code used up, audited) and they are signed in. A code taken on
    its way to its person is not enough for an account with a factor. A wrong, used or
    expired code is a failed attempt of the subject, counted as a wrong password is
    (bff/auth/throttle.py), and never against the address: the provider vouched for the
    subject, a code has 80 bits, and colleagues behind one address keep their way in. Never
    an admin account."""
    offer = await _offer_here(code, browser, address, "link-code")
    code_hash = link_code_hash(link_code)
    now = datetime.now(UTC)
    subject_key = _throttle_key("subject", offer.subject)
    async with throttle.attempt(subject_key, address, by_address=False) as attempt:
        expected = await repository.expected_by_code(code_hash, now)
        if expected is None:  # the reservation stays: counted as a failure
            await _refused(offer.subject, address, "link_code", f"subject={offer.subject[:200]}")
            raise ApiError(400, BAD_LINK_CODE)
        user = await find_user(expected.user_id)
        second_step = await mfa.has_factor(user.id)
        # made an admin since the code was issued: refused
        refusal = _link_refusal(user, False, await repository.is_linked(user.id, offer.issuer))
        if refusal is not None or second_step:
            await throttle.release(attempt)  # the code was right; a factor may follow
        else:
            await attempt.succeeded()
    if refusal is not None:
        await _refused(offer.subject, address, "link_refused", f"user={user.username} by=code")
        raise refusal
    return await _link_and_sign_in(
        user, offer, second_step, "code", address, settings, (code_hash, now)
    )


async def backchannel_logout(logout_token: str, address: str, provider: Provider) -> int:
    """End every session of the logout token's subject (or, with only a sid, of that provider
    session); how many ended. 400 for a token that fails a check or was used before."""
    try:
        claims = await provider.logout_token_claims(logout_token)
    except InvalidToken as exc:
        await record_repeated(
            Actor(None, "oidc:", "", address),
            "logout",
            reason="backchannel_refused",
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


# --- An admin's side: the link of each account -------------------------------------------------


async def sso_account(user_id: int, settings: Settings) -> UserSso:
    """A user's single sign-on as the admin's user page shows it: the subject linked, the
    "link at next sign-in" pending, and the subjects seen lately without a link (to pick)."""
    user = await find_user(user_id)
    if not settings.oidc_enabled:
        return UserSso(enabled=False, provider=settings.oidc_display_name, admin=False, seen=[])
    issuer = settings.oidc_issuer
    link = await repository.link_of(user.id, issuer)
    now = datetime.now(UTC)
    until = await repository.expected_until(user.id)
    seen = await repository.seen_since(issuer, now - timedelta(days=SEEN_DAYS), SEEN_SHOWN)
    return UserSso(
        enabled=True,
        provider=settings.oidc_display_name,
        admin=user.role == Role.ADMIN,
        subject=link.subject if link else None,
        linkedAt=link.created_at if link else None,
        expectedUntil=until if until is not None and until > now else None,
        seen=[
            SeenSubject(subject=s.subject, username=s.username, name=s.name, seenAt=s.seen_at)
            for s in seen
        ],
    )


def _subject(text: str) -> str:
    """A subject an admin typed or picked: as the provider sends it (case and all), without
    the spaces around it; 400 if empty or holding control or invisible characters."""
    subject = text.strip()
    if not subject or any(unicodedata.category(c) == "Cc" or is_invisible(c) for c in subject):
        raise ApiError(400, "Enter the subject (sub) exactly as the identity provider sends it.")
    return subject


async def bind(user_id: int, subject: str, actor: Actor, issuer: str) -> None:
    """Link a user to a provider's subject an admin entered or picked (audited)."""
    subject = _subject(subject)
    user = await find_user(user_id)
    if await repository.is_linked(user.id, issuer):
        raise ApiError(409, "This user is linked already. Remove that link first.")
    other = await repository.linked_user_id(issuer, subject)
    if other is not None:
        holder = await find_user(other)
        raise ApiError(409, f"That subject is linked to {holder.username} already.")
    try:
        async with transaction() as conn:
            await repository.link(conn, user.id, issuer, subject)
            await record(
                conn,
                actor,
                "user_update",
                details=f"user={user.username} changed=sso-linked by=admin subject={subject}",
            )
            publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    except IntegrityError:
        raise ApiError(409, "That subject was linked meanwhile.") from None


async def expect(
    user_id: int, actor: Actor, issuer: str, days: int = EXPECT_DAYS
) -> tuple[str, datetime]:
    """An admin's "link at next sign-in" for a user (audited): a new one-time link code (any
    earlier one of the user's stops working), for the admin to hand to that person privately.
    Until it expires (days), the person enters it after a sign-in through the provider that is
    linked to no account, and that sign-in's subject is linked to this user, once. Not for
    admin accounts (linked by their subject only) nor a linked user. Returns the code (only
    its hash is kept: shown this once) and when it expires."""
    user = await find_user(user_id)
    if user.role == Role.ADMIN:
        raise ApiError(
            400, "An admin account is linked by its subject only: enter or pick the subject."
        )
    if await repository.is_linked(user.id, issuer):
        raise ApiError(409, "This user is linked already.")
    code = new_link_code()
    until = datetime.now(UTC) + timedelta(days=days)
    async with transaction() as conn:
        await repository.expect(conn, user.id, link_code_hash(code), until)
        await record(
            conn,
            actor,
            "user_update",
            details=f"user={user.username} changed=sso-expected until={until:%Y-%m-%dT%H:%MZ}",
        )
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return code, until


async def cancel_expected(user_id: int, actor: Actor) -> None:
    """Withdraw a user's "link at next sign-in" (audited); 404 when there is none."""
    user = await find_user(user_id)
    async with transaction() as conn:
        if not await repository.drop_expected(conn, user.id):
            raise ApiError(404, NOT_EXPECTED)
        await record(
            conn, actor, "user_update", details=f"user={user.username} changed=sso-expected-off"
        )
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])


async def unlink(user_id: int, actor: Actor) -> None:
    """Remove a user's link to the provider (they sign in through it again only once linked
    anew: by an admin, or by their own password); audited."""
    user = await find_user(user_id)
    async with transaction() as conn:
        removed = await repository.unlink(conn, user.id)
        if not removed:
            raise ApiError(404, NOT_LINKED)
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        await record(
            conn, actor, "user_update", details=f"user={user.username} changed=sso-unlinked"
        )
