"""Single sign-on after the third review (issue 47, items 2 to 6), each attack replayed against
the real OpenID Provider (npm oidc-provider on 127.0.0.1): a username claim never takes over an
account (an admin links by subject or by a one-time link code for "link at next sign-in", or
the owner by their password and factor), the one-time code works only in the browser that
started the sign-in, made-up codes do not lock an address out, unknown key ids and repeated
refusals cost little, and provisioned usernames follow naming.py's rule."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from quart import Quart
from quart.testing import QuartClient as Client

from bff.audit import service as audit_service
from bff.auth.models import Session
from bff.naming import username_error
from bff.oidc import service as oidc
from bff.oidc.models import OidcExpected, OidcLink
from bff.oidc.provider import KEY_REFETCH_SECONDS
from bff.users.models import Role, User
from tests.auth.oidc_support import (
    ForgingIssuer,
    OidcProvider,
    account,
    provider_sign_in,
    query_of,
    running_provider,
)
from tests.auth.test_oidc import audit, callback, complete, link, sign_in, sso_app, start
from tests.factories import PASSWORD, make_staff, make_user
from tests.mfa.helpers import ADDR, call, enrol_totp, login, second_step
from tests.mfa.helpers import code as totp
from tools.devserver import REPO, local_env

pytestmark = pytest.mark.database

ACCOUNTS = {
    # The review's two takeovers: a username claim naming someone else's account.
    "mallory": account("Mallory", ["Portal-Admins", "Nurses"], "ADMIN"),
    "chief.doctor": account("Chief Doctor", ["Doctors"], "dr.demo"),
    # People whose accounts get linked.
    "demo.sso": account("Demo Doctor", ["Doctors"], "demo.sso"),
    "nurse.erin": account("Erin Nurse", ["Nurses"], "nurse.erin"),
    "nurse.carol": account("Carol Nurse", ["Nurses"], "nurse.carol"),
    "dr.dave": account("Dave Doctor", ["Doctors"], "dr.dave"),
    "dave.twin": account("Not Dave", ["Doctors"], "DR.DAVE"),
    "boss": account("Boss", ["Nurses"], "boss"),
    "climber": account("Climber", ["Portal-Admins"], "climber"),
    # Item 6: username claims that break the username rule.
    "cyrillic": account("Cyrillic", ["Nurses"], "\u0430dmin"),  # Cyrillic a
    "zero-width": account("Zero Width", ["Nurses"], "dr.demo\u200b"),
    "markup": account("Markup", ["Nurses"], "<img src=x onerror=alert(1)>"),
    "kelvin": account("Kelvin", ["Nurses"], "\u212aate"),  # the Kelvin sign, then 'ate'
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    with running_provider(tmp_path_factory.mktemp("oidc-linking"), ACCOUNTS) as running:
        yield running


@pytest.fixture
async def app(database_url: str, run_dir: Path, provider: OidcProvider) -> AsyncIterator[Quart]:
    async with sso_app(database_url, run_dir, **provider.settings()) as started:
        yield started


def offer_of(location: str) -> str:
    """The one-time code of an offer to link an account (`/login#sso-link=`)."""
    assert location.startswith("/login#sso-link="), location
    return location.split("=", 1)[1]


async def tried(client: Client, who: str, *, mfa: bool = False) -> str:
    """A sign-in at the provider as who: where the portal's callback sends the browser."""
    return await callback(client, await provider_sign_in(await start(client), who, mfa=mfa))


async def link_by_password(
    client: Client, offer: str, username: str, password: str = PASSWORD
) -> Any:
    body = {"code": offer, "username": username, "password": password}
    return await call(client, "POST", "/api/auth/oidc/link", json=body)


# --- Item 2: accounts are linked by an admin or by their owner, never by a claim -------------


@pytest.mark.parametrize("provision", ["off", "on"])
async def test_a_username_claim_never_takes_over_an_account(
    database_url: str, run_dir: Path, provider: OidcProvider, provision: str
) -> None:
    """The review's attacks: provider user "mallory" claiming the username ADMIN (in the admin
    group), and "chief.doctor" claiming dr.demo, who has TOTP. Neither is linked, signed in or
    changes anything; each is offered to prove the account, which they cannot."""
    settings = provider.settings(oidc_provision=provision)
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        bff = app.extensions["bff"].settings
        admin = await make_staff(bff, Role.ADMIN, username="admin", name="Administrator")
        demo = await make_staff(bff, Role.DOCTOR, username="dr.demo", name="Demo Doctor")
        await enrol_totp(client, demo.token)
        for who in ("mallory", "chief.doctor"):
            offer = offer_of(await tried(client, who))
            refused = await link_by_password(client, offer, "dr.demo", "not the password")
            assert refused.status_code == 401
        assert not await OidcLink.exists()
        after = await User.get(id=admin.user.id)
        assert (after.role, after.name, after.username) == (Role.ADMIN, "Administrator", "admin")
        after = await User.get(id=demo.user.id)
        assert (after.role, after.name) == (Role.DOCTOR, "Demo Doctor")
        for staff in (admin, demo):  # nobody's sessions ended
            assert (await call(client, "GET", "/api/auth/me", staff.token)).status_code == 200
        assert (await login(client, "admin")).status_code == 200  # still the admin's password
        assert await User.filter(username__in=["admin-2", "dr.demo-2"]).count() == 0
        assert await User.all().count() == 2  # provisioning never merged nor doubled them


async def test_the_owner_links_their_account_by_password_and_factor(
    client: Client, app: Quart, provider: OidcProvider
) -> None:
    """The refusal offers the person to prove the account (password, then its factor) once;
    never an admin account, never from another browser; and says to ask an administrator."""
    demo = await make_staff(app.extensions["bff"].settings, Role.DOCTOR, username="dr.demo")
    _, recovery_codes, _ = await enrol_totp(client, demo.token)
    offer = offer_of(await tried(client, "demo.sso"))
    elsewhere = await link_by_password(app.test_client(), offer, "dr.demo")
    assert elsewhere.status_code == 401
    assert (await elsewhere.get_json())["message"] == oidc.OTHER_BROWSER
    admin = await make_user(Role.ADMIN, username="chief")
    refused = await link_by_password(client, offer, admin.username)
    assert refused.status_code == 403
    assert (await refused.get_json())["message"].endswith(oidc.ASK_ADMIN)
    assert (await link_by_password(client, offer, "dr.demo", "wrong")).status_code == 401
    proved = await link_by_password(client, offer, "dr.demo")
    assert proved.status_code == 200, await proved.get_data()
    body = await proved.get_json()
    assert body["mfaRequired"] is True and "token" not in body
    assert not await OidcLink.exists()  # not before the factor
    done = await second_step(client, body["mfaToken"], code=recovery_codes[0])
    assert done.status_code == 200, await done.get_data()
    assert (await OidcLink.get(user_id=demo.user.id)).subject == "demo.sso"
    assert any("sso-linked by=password" in e.details for e in await audit("user_update"))
    again = await link_by_password(client, offer, "dr.demo")  # the offer is spent
    assert again.status_code == 401
    # From now on the provider's sign-in is dr.demo's (with the local second step).
    assert (await sign_in(client, "demo.sso"))["mfaRequired"] is True
    # An account without a factor: the password alone links it and signs in.
    erin = await make_user(Role.NURSE, username="erin")
    body = await (
        await link_by_password(client, offer_of(await tried(client, "nurse.erin")), "erin")
    ).get_json()
    assert body["user"]["id"] == erin.id and body["token"]
    assert (await OidcLink.get(user_id=erin.id)).subject == "nurse.erin"


async def test_an_account_whose_password_may_not_sign_in_cannot_be_linked_by_it(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    settings = provider.settings(oidc_local_passwords="none")
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="erin")
        refused = await link_by_password(
            client, offer_of(await tried(client, "nurse.erin")), "erin"
        )
        assert refused.status_code == 403
        assert (await refused.get_json())["message"].endswith(oidc.ASK_ADMIN)
        assert not await OidcLink.exists()


async def test_an_admin_links_a_subject_picked_from_those_seen(client: Client, app: Quart) -> None:
    admin = await make_staff(app.extensions["bff"].settings, Role.ADMIN)
    carol = await make_user(Role.NURSE, username="carol", name="Carol")
    offer_of(await tried(client, "nurse.carol"))
    shown = await call(client, "GET", f"/api/users/{carol.id}/sso", admin.token)
    sso = await shown.get_json()
    assert sso["subject"] is None and sso["expectedUntil"] is None
    [seen] = sso["seen"]
    assert (seen["subject"], seen["username"], seen["name"]) == (
        "nurse.carol",
        "nurse.carol",
        "Carol Nurse",
    )
    url = f"/api/users/{carol.id}/sso-link"
    bound = await call(client, "PUT", url, admin.token, json={"subject": seen["subject"]})
    assert bound.status_code == 200, await bound.get_data()
    body = await sign_in(client, "nurse.carol")
    assert body["user"]["id"] == carol.id and body["user"]["name"] == "Carol Nurse"
    sso = await (await call(client, "GET", f"/api/users/{carol.id}/sso", admin.token)).get_json()
    assert sso["subject"] == "nurse.carol" and sso["seen"] == []
    # One subject, one account; one link an account; no empty or invisible subjects.
    other = await make_user(Role.NURSE)
    taken = await call(
        client,
        "PUT",
        f"/api/users/{other.id}/sso-link",
        admin.token,
        json={"subject": "nurse.carol"},
    )
    assert taken.status_code == 409
    twice = await call(client, "PUT", url, admin.token, json={"subject": "another"})
    assert twice.status_code == 409
    for bad in (" ", "a\u200bb", "a\nb"):
        response = await call(
            client, "PUT", f"/api/users/{other.id}/sso-link", admin.token, json={"subject": bad}
        )
        assert response.status_code == 400, bad
    # A step-up change: an admin who signed in long ago confirms first.
    await Session.filter(user_id=admin.user.id).update(
        authenticated_at=datetime.now(UTC) - timedelta(days=1)
    )
    stale = await call(
        client, "PUT", f"/api/users/{other.id}/sso-link", admin.token, json={"subject": "x"}
    )
    assert stale.status_code == 403 and (await stale.get_json())["reauth"] is True


async def issue_code(client: Client, admin: Any, user_id: int) -> str:
    """An admin's "Link at next sign-in": the link code, from the one answer that shows it."""
    issued = await call(client, "PUT", f"/api/users/{user_id}/sso-expected", admin.token)
    assert issued.status_code == 200, await issued.get_data()
    code = (await issued.get_json())["linkCode"]
    assert re.fullmatch(r"([2-9A-HJ-NP-Z]{4}-){3}[2-9A-HJ-NP-Z]{4}", code), code
    return str(code)


async def link_by_code(client: Client, offer: str, link_code: str, addr: str = ADDR) -> Any:
    body = {"code": offer, "linkCode": link_code}
    return await call(client, "POST", "/api/auth/oidc/link-code", json=body, addr=addr)


async def test_a_username_claim_never_uses_an_admins_link_at_next_sign_in(
    client: Client, app: Quart
) -> None:
    """The hostile review's replay: an admin issued "link at next sign-in" for dr.dave, who has
    TOTP; a different provider user whose username claim is DR.DAVE signs in with amr=otp. Not
    linked, no session, nothing of dr.dave changed: the refusal page (the offer to link). Not
    even the provider user whose claim is dr.dave exactly: only the code links."""
    settings = app.extensions["bff"].settings
    admin = await make_staff(settings, Role.ADMIN)
    dave = await make_staff(settings, Role.DOCTOR, username="dr.dave", name="Dr Dave Local")
    await enrol_totp(client, dave.token)
    url = f"/api/users/{dave.user.id}/sso-expected"
    assert (await call(client, "PUT", url, admin.token)).status_code == 200
    sessions = await Session.filter(user_id=dave.user.id).count()
    for who in ("dave.twin", "dr.dave"):
        offer_of(await tried(client, who, mfa=True))  # the refusal page, not a sign-in
    assert not await OidcLink.exists()
    after = await User.get(id=dave.user.id)
    assert (after.role, after.name, after.username) == (Role.DOCTOR, "Dr Dave Local", "dr.dave")
    assert (await call(client, "GET", "/api/auth/me", dave.token)).status_code == 200
    assert await Session.filter(user_id=dave.user.id).count() == sessions
    assert not any("sso-linked" in e.details for e in await audit("user_update"))
    sso = await (
        await call(client, "GET", f"/api/users/{dave.user.id}/sso", admin.token)
    ).get_json()
    assert sso["expectedUntil"] is not None  # the code still waits for its person


async def test_a_link_code_links_once_and_asks_the_factor_whatever_the_provider_says(
    client: Client, app: Quart
) -> None:
    """The code is shown once (audited, never stored or shown again), links the subject of the
    sign-in it is entered in once the account's own factor is proved (the provider's amr=otp
    is not trusted at that sign-in), and is used up then."""
    settings = app.extensions["bff"].settings
    admin = await make_staff(settings, Role.ADMIN)
    dave = await make_staff(settings, Role.DOCTOR, username="dr.dave")
    secret, _, _ = await enrol_totp(client, dave.token)
    code = await issue_code(client, admin, dave.user.id)
    [issued] = [e.details for e in await audit("user_update") if "sso-expected" in e.details]
    assert issued.startswith("user=dr.dave changed=sso-expected until=")
    shown = await call(client, "GET", f"/api/users/{dave.user.id}/sso", admin.token)
    sso = await shown.get_json()
    until = datetime.fromisoformat(sso["expectedUntil"])
    assert timedelta(days=6, hours=23) < until - datetime.now(UTC) <= timedelta(days=7)
    stored = await OidcExpected.get(user_id=dave.user.id)
    assert code.replace("-", "") not in (await shown.get_data(as_text=True)) + stored.code_hash
    # dr.dave signs in at the provider with its own MFA and enters the code, typed loosely.
    offer = offer_of(await tried(client, "dr.dave", mfa=True))
    typed = code.lower().replace("-", " ")
    asked = await link_by_code(client, offer, typed)
    assert asked.status_code == 200, await asked.get_data()
    body = await asked.get_json()
    assert body["mfaRequired"] is True and "token" not in body
    assert not await OidcLink.exists()  # not before the factor
    done = await second_step(client, body["mfaToken"], code=totp(secret, 1))
    assert done.status_code == 200, await done.get_data()
    assert (await OidcLink.get(user_id=dave.user.id)).subject == "dr.dave"
    linked = [e.details for e in await audit("user_update") if "sso-linked" in e.details]
    assert linked == ["user=dr.dave changed=sso-linked by=code subject=dr.dave"]
    assert not await OidcExpected.exists(user_id=dave.user.id)  # used up
    # Once only: the same code in another provider user's sign-in links nothing.
    again = await link_by_code(client, offer_of(await tried(client, "dave.twin")), code)
    assert again.status_code == 400
    assert (await again.get_json())["message"] == oidc.BAD_LINK_CODE
    assert await OidcLink.filter(user_id=dave.user.id).count() == 1
    # From now on dr.dave signs in through the provider (as a linked account does).
    assert (await sign_in(client, "dr.dave"))["mfaRequired"] is True


async def test_a_link_code_without_a_factor_signs_in_as_a_password_would(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """An account without a factor is linked at once; its role's factor rule applies as at a
    password sign-in (a nurse must enrol one), even though the provider said amr=otp."""
    settings = provider.settings(mfa_required_roles="nurse")
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        admin = await make_staff(app.extensions["bff"].settings, Role.ADMIN)
        carol = await make_user(Role.NURSE, username="carol")
        code = await issue_code(client, admin, carol.id)
        offer = offer_of(await tried(client, "nurse.carol", mfa=True))
        linked = await link_by_code(client, offer, code)
        assert linked.status_code == 200, await linked.get_data()
        body = await linked.get_json()
        assert body["user"]["id"] == carol.id and body["mfaEnrolmentRequired"] is True
        assert (await OidcLink.get(user_id=carol.id)).subject == "nurse.carol"
        [entry] = await audit("login")
        assert entry.user_id == carol.id and entry.details.endswith("mfa=False")


async def test_a_link_code_is_replaced_withdrawn_expires_and_never_links_an_admin(
    client: Client, app: Quart
) -> None:
    admin = await make_staff(app.extensions["bff"].settings, Role.ADMIN)
    carol = await make_user(Role.NURSE, username="carol")
    url = f"/api/users/{carol.id}/sso-expected"

    async def refused(code: str) -> None:
        response = await link_by_code(client, offer_of(await tried(client, "nurse.carol")), code)
        assert response.status_code == 400, await response.get_data()
        assert (await response.get_json())["message"] == oidc.BAD_LINK_CODE

    first = await issue_code(client, admin, carol.id)
    second = await issue_code(client, admin, carol.id)  # one live code a user: replaced
    await refused(first)
    assert (await call(client, "DELETE", url, admin.token)).status_code == 200
    assert (await call(client, "DELETE", url, admin.token)).status_code == 404
    await refused(second)  # withdrawn
    third = await issue_code(client, admin, carol.id)
    await OidcExpected.filter(user_id=carol.id).update(
        expires_at=datetime.now(UTC) - timedelta(minutes=1)
    )
    await refused(third)  # expired
    for made_up in ("", "x" * 16, "2222-2222-2222-222"):
        await refused(made_up or " ")
    assert not await OidcLink.exists()
    # Never for an admin account: not issued, and not used once its user became one.
    chief = await make_user(Role.ADMIN)
    denied = await call(client, "PUT", f"/api/users/{chief.id}/sso-expected", admin.token)
    assert denied.status_code == 400
    fourth = await issue_code(client, admin, carol.id)
    await User.filter(id=carol.id).update(role=Role.ADMIN)
    offer = offer_of(await tried(client, "nurse.carol"))
    promoted = await link_by_code(client, offer, fourth)
    assert promoted.status_code == 403
    assert (await promoted.get_json())["message"].endswith(oidc.ASK_ADMIN)
    assert not await OidcLink.exists()
    # Only in the browser that started the sign-in (the offer's cookie rules).
    await User.filter(id=carol.id).update(role=Role.NURSE)
    offer = offer_of(await tried(client, "nurse.carol"))
    elsewhere = await link_by_code(app.test_client(), offer, fourth)
    assert elsewhere.status_code == 401
    assert (await elsewhere.get_json())["message"] == oidc.OTHER_BROWSER
    assert (await link_by_code(client, offer, fourth)).status_code == 200
    assert (await OidcLink.get(user_id=carol.id)).subject == "nurse.carol"
    # A step-up change: an admin who signed in long ago confirms first.
    await Session.filter(user_id=admin.user.id).update(
        authenticated_at=datetime.now(UTC) - timedelta(days=1)
    )
    other = await make_user(Role.NURSE)
    stale = await call(client, "PUT", f"/api/users/{other.id}/sso-expected", admin.token)
    assert stale.status_code == 403 and (await stale.get_json())["reauth"] is True


async def test_wrong_link_codes_are_throttled_like_wrong_passwords(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """Guessing codes: each wrong one is a failed sign-in of the provider user guessing (429
    with Retry-After past BFF_LOGIN_MAX_FAILURES, then even the right code waits), audited;
    never against the address: someone else there keeps their way in, by code or password."""
    settings = provider.settings(login_max_failures=3, login_max_failures_per_address=2)
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        admin = await make_staff(app.extensions["bff"].settings, Role.ADMIN)
        carol = await make_user(Role.NURSE, username="carol")
        erin = await make_user(Role.NURSE, username="erin")
        carols, erins = (
            await issue_code(client, admin, carol.id),
            await issue_code(client, admin, erin.id),
        )
        offer = offer_of(await tried(client, "dave.twin"))
        statuses = [
            (await link_by_code(client, offer, f"2222-2222-2222-{n}{n}{n}{n}")).status_code
            for n in range(2, 5)
        ]
        assert statuses == [400, 400, 400]
        held = await link_by_code(client, offer, carols)
        assert held.status_code == 429 and int(held.headers["Retry-After"]) >= 1
        assert not await OidcLink.exists()
        reasons = [e.details for e in await audit("login_failed")]
        assert any("reason=link_code subject=dave.twin" in r for r in reasons), reasons
        # The provider user held is the guesser; carol's code still waits for carol.
        assert await OidcExpected.exists(user_id=carol.id)
        other = app.test_client()
        linked = await link_by_code(other, offer_of(await tried(other, "nurse.erin")), erins)
        assert linked.status_code == 200, await linked.get_data()
        assert (await OidcLink.get(user_id=erin.id)).subject == "nurse.erin"
        # Three wrong codes from the address, its limit two: a password there still signs in.
        assert (await login(app.test_client(), carol.username)).status_code == 200


async def test_claims_never_make_or_change_an_admin(client: Client, provider: OidcProvider) -> None:
    """An admin account keeps its role and name whatever the claims say, and signs in only while
    they map to admin; an account that is not an admin never becomes one by claims."""
    boss = await make_user(Role.ADMIN, username="boss", name="The Boss")
    await link(boss, "boss", provider.issuer)
    assert await tried(client, "boss") == "/login?sso=admin_role"  # its claims: a nurse
    provider.set_groups("boss", "Boss Renamed", ["Portal-Admins"])
    try:
        body = await sign_in(client, "boss")
    finally:
        provider.set_groups("boss", "Boss", ["Nurses"])
    assert body["user"]["role"] == "admin"
    assert (await User.get(id=boss.id)).name == "The Boss"
    climber = await make_user(Role.NURSE, username="climber")
    await link(climber, "climber", provider.issuer)
    assert await tried(client, "climber") == "/login?sso=admin_role"  # admin only: refused
    assert (await User.get(id=climber.id)).role == Role.NURSE
    provider.set_groups("climber", "Climber", ["Portal-Admins", "Doctors"])
    try:
        body = await sign_in(client, "climber")
    finally:
        provider.set_groups("climber", "Climber", ["Portal-Admins"])
    assert body["user"]["role"] == "doctor"  # the highest role short of admin
    reasons = [e.details for e in await audit("login_failed")]
    assert sum("reason=admin_role" in r for r in reasons) == 2


# --- Item 6: provisioned usernames follow naming.py's rule -----------------------------------


async def test_provisioning_creates_new_accounts_only_under_the_username_rule(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """Cyrillic a, a zero-width space, markup: a generated username (sso-...); the Kelvin sign
    folds to 'kate' (NFKC, case-folded); a claim naming an existing account creates nothing."""
    async with sso_app(database_url, run_dir, **provider.settings(oidc_provision="on")) as app:
        client = app.test_client()
        await make_user(Role.DOCTOR, username="dr.demo")
        made = {}
        for who in ("cyrillic", "zero-width", "markup", "kelvin"):
            body = await sign_in(client, who)
            made[who] = body["user"]["username"]
        assert made["kelvin"] == "kate"
        for who in ("cyrillic", "zero-width", "markup"):
            assert made[who].startswith("sso-") and len(made[who]) == 12, made
        assert len(set(made.values())) == 4
        assert all(
            username_error(u) is None for u in await User.all().values_list("username", flat=True)
        )
        assert not await User.exists(username="\u0430dmin")
        creations = [e.details for e in await audit("user_create")]
        assert sum("username_claim_refused" in d for d in creations) == 3
        # Claims naming existing accounts ('dr.demo'; 'kate' in capitals, with the Kelvin
        # sign) create nothing and are never merged into them.
        offer_of(await tried(client, "chief.doctor"))
        twin = ACCOUNTS["dave.twin"]["claims"]
        provider.control(
            "/test/accounts/dave.twin", {"claims": {**twin, "preferred_username": "\u212aATE"}}
        )
        try:
            offer_of(await tried(client, "dave.twin"))
        finally:
            provider.control("/test/accounts/dave.twin", {"claims": twin})
        assert await User.all().count() == 5


# --- Item 3: the one-time code works only in the browser that started the sign-in ------------


async def test_the_one_time_code_works_only_in_the_browser_that_started_it(
    client: Client, app: Quart, provider: OidcProvider
) -> None:
    """Login CSRF: the attacker's own /login#sso=... opened in someone else's browser signs
    nobody in there, and the attacker's browser can still use it."""
    await link(await make_user(Role.NURSE, username="nurse.erin"), "nurse.erin", provider.issuer)
    location = await tried(client, "nurse.erin")
    code_ = location.split("=", 1)[1]
    victim = app.test_client()
    refused = await call(victim, "POST", "/api/auth/oidc/complete", json={"code": code_})
    assert refused.status_code == 401
    assert (await refused.get_json())["message"] == oidc.OTHER_BROWSER
    # A browser cookie of its own does not help it either.
    await start(victim)
    refused = await call(victim, "POST", "/api/auth/oidc/complete", json={"code": code_})
    assert refused.status_code == 401
    assert (await complete(client, location))["user"]["username"] == "nurse.erin"
    # The offer to link an account is bound the same way.
    await make_user(Role.NURSE, username="carol")
    offer = offer_of(await tried(client, "nurse.carol"))
    assert (await link_by_password(victim, offer, "carol")).status_code == 401
    assert (await link_by_password(client, offer, "carol")).status_code == 200


# --- Item 4: made-up codes do not lock an address out -----------------------------------------


async def made_up_code(client: Client) -> str:
    """A callback with a genuine state but a code the provider never issued."""
    state = query_of(await start(client))["state"]
    return await callback(client, f"/api/auth/oidc/callback?code=made-up&state={state}")


async def test_made_up_codes_do_not_lock_the_address_out(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """The password sign-in's rules: a code the provider refuses counts against its browser
    (the /start cookie) alone, never the address's budget. The attacker's browser waits past its
    own limit; however many fresh browsers spend theirs (the review: 30 made-up codes, then
    every subject new at the address refused for 15 minutes), a browser and a subject new at
    the address still sign in."""
    settings = provider.settings(login_max_failures=3, login_max_failures_per_address=6)
    async with sso_app(database_url, run_dir, **settings) as app:
        for who in ("nurse.erin", "nurse.carol", "dr.dave"):
            await link(await make_user(Role.NURSE, username=who), who, provider.issuer)
        known = app.test_client()
        assert (await sign_in(known, "nurse.erin"))["token"]  # works here
        attacker = app.test_client()
        assert [await made_up_code(attacker) for _ in range(4)] == [
            "/login?sso=invalid_token"
        ] * 3 + ["/login?sso=busy"]
        # Someone else at the address is not held by the attacker's browser's count.
        assert (await sign_in(app.test_client(), "nurse.carol"))["token"]
        # Fresh browsers, each to its own limit: 12 refused codes, twice the address's limit.
        for _ in range(4):
            another = app.test_client()
            refused = [await made_up_code(another) for _ in range(3)]
            assert refused == ["/login?sso=invalid_token"] * 3
        # A browser and a subject new at the address sign in, and so do the others.
        assert (await sign_in(app.test_client(), "dr.dave"))["token"]
        assert (await sign_in(known, "nurse.erin"))["token"]
        assert (await sign_in(app.test_client(), "nurse.carol"))["token"]
        assert await made_up_code(attacker) == "/login?sso=busy"  # still its own wait


async def test_requests_from_others_at_the_address_never_lock_out_a_known_browser(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """BFF_OIDC_REQUESTS_PER_MINUTE per address is a load limit anyone there can fill: the
    review's 20 junk POSTs to /complete against a limit of 20 made /start and /callback answer
    `sso=busy` for everyone there, a browser that signed in from the address before included.
    Such a browser is counted on its own (the same limit, per browser); the address's count
    holds the browsers new there."""
    async with sso_app(
        database_url, run_dir, **provider.settings(oidc_requests_per_minute=8)
    ) as app:
        await link(
            await make_user(Role.NURSE, username="nurse.erin"), "nurse.erin", provider.issuer
        )
        known = app.test_client()
        # /start and /callback count against the address (2 of 8); /complete, once the
        # browser signed in here, against the browser.
        assert (await sign_in(known, "nurse.erin"))["token"]

        async def junk(client: Client) -> int:
            answer = await call(client, "POST", "/api/auth/oidc/complete", json={"code": "junk"})
            return int(answer.status_code)

        attacker = app.test_client()
        flood = [await junk(attacker)]
        while flood[-1] != 429 and len(flood) < 8:
            flood.append(await junk(attacker))
        busy = await call(app.test_client(), "GET", "/api/auth/oidc/start")
        assert busy.headers["location"] == "/login?sso=busy"  # a browser new here waits
        assert (await sign_in(known, "nurse.erin"))["token"]  # 4 of the browser's own 8
        assert flood == [401] * 6 + [429]  # the address's 8 less nurse.erin's /start, /callback
        assert [await junk(known) for _ in range(5)] == [401] * 4 + [429]
        # Known at this address only: elsewhere it is counted by that address.
        elsewhere = await call(known, "GET", "/api/auth/oidc/start", addr="10.9.9.9")
        assert elsewhere.headers["location"].startswith(provider.issuer)


# --- Item 5: unknown key ids, refusals and floods cost little --------------------------------


async def test_unknown_key_ids_fetch_the_keys_at_most_once_a_while(
    database_url: str, run_dir: Path
) -> None:
    """Fifty logout tokens naming made-up key ids: one fetch of the provider's keys for them
    all, and another only once KEY_REFETCH_SECONDS have passed (the clock is the test's)."""
    forging = ForgingIssuer()
    stranger = RSAKey.generate_key(2048)

    def made_up(kid: str) -> str:
        return jwt.encode({"alg": "RS256", "kid": kid}, {"iss": forging.issuer}, stranger)

    async with forging as issuer, sso_app(database_url, run_dir, **forging.settings()) as app:
        client = app.test_client()
        now = [1000.0]
        app.extensions["bff"].oidc.clock = lambda: now[0]

        async def post(token: str) -> int:
            form = {"logout_token": token}
            return (await client.post("/api/auth/oidc/backchannel-logout", form=form)).status_code

        assert await post(issuer.logout_token()) == 200
        assert issuer.jwks_fetches == 1
        for i in range(50):
            assert await post(made_up(f"made-up-{i}")) == 400
        assert issuer.jwks_fetches == 2  # fetched again once for them all
        now[0] += KEY_REFETCH_SECONDS
        assert await post(made_up("later")) == 400
        assert issuer.jwks_fetches == 3
        assert await post(issuer.logout_token()) == 200  # the provider's own key still works
        assert issuer.jwks_fetches == 3


async def test_repeated_refusals_are_one_entry_with_a_count(
    database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hundred forged logout tokens and a hundred callbacks with `error=`: one entry each at
    once, and one with the count of the other 99 (the minute is frozen here)."""
    monkeypatch.setattr(audit_service, "_clock", lambda: 0.0)
    forging = ForgingIssuer()
    async with forging as issuer, sso_app(database_url, run_dir, **forging.settings()) as app:
        client = app.test_client()
        for _ in range(100):
            forged = issuer.logout_token(aud="someone-else")
            response = await client.post(
                "/api/auth/oidc/backchannel-logout", form={"logout_token": forged}
            )
            assert response.status_code == 400
            back = await callback(client, "/api/auth/oidc/callback?error=access_denied")
            assert back == "/login?sso=provider_error"
        assert [e.details for e in await audit("logout")] == [
            "method=backchannel refused=claims (invalid_claim: aud)"
        ]
        assert len(await audit("login_failed")) == 1
        await audit_service.flush()
        for operation in ("logout", "login_failed"):
            first, counted = await audit(operation)
            assert counted.details == first.details + " repeated=99 within 60s"


async def test_the_public_endpoints_are_limited_per_address(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    settings = provider.settings(oidc_requests_per_minute=4)
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        for _ in range(4):
            await start(client)
        again = await call(client, "GET", "/api/auth/oidc/start")
        assert again.headers["location"] == "/login?sso=busy"
        for path, data in (
            ("/api/auth/oidc/complete", {"json": {"code": "x"}}),
            ("/api/auth/oidc/link", {"json": {"code": "x", "username": "u", "password": "p"}}),
            ("/api/auth/oidc/link-code", {"json": {"code": "x", "linkCode": "y"}}),
        ):
            refused = await call(client, "POST", path, **data)
            assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        logout = await client.post(
            "/api/auth/oidc/backchannel-logout",
            form={"logout_token": "x"},
            scope_base={"client": (ADDR, 40000)},
        )
        assert logout.status_code == 429
        # Another address is not held by this one's requests.
        elsewhere = await call(client, "GET", "/api/auth/oidc/start", addr="10.9.9.9")
        assert elsewhere.headers["location"].startswith(provider.issuer)


# --- The roll-out to existing staff from the command line --------------------------------------


def test_expect_sso_for_listed_users_from_the_command_line(tmp_path: Path) -> None:
    env = {
        **local_env(tmp_path),
        "BFF_OIDC_ISSUER": "http://127.0.0.1:9",
        "BFF_OIDC_CLIENT_ID": "portal",
        "BFF_OIDC_CLIENT_SECRET": "s" * 32,
    }

    def bff(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # noqa: S603 - our own CLI
            [sys.executable, "-m", "bff", *args],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            input=stdin,
            check=False,
        )

    for username, role in (("ann", "nurse"), ("bob", "doctor"), ("root", "admin")):
        made = bff("users", "create", "--username", username, "--name", username.title(),
                   "--role", role, "--password", "first-password-words")  # fmt: skip
        assert made.returncode == 0, made.stderr
    listing = tmp_path / "staff.txt"
    listing.write_text("# ward 3\nBOB\n")
    done = bff("users", "expect-sso", "ann", "root", "nobody\x1b]0;x\x07", "--file", str(listing))
    assert done.returncode == 1
    hint, *lines = done.stdout.splitlines()
    assert hint.startswith("# username, link code, expiry: hand each code to its person privately")
    rows = [line.split("  ") for line in lines]
    assert [row[0] for row in rows] == ["ann", "bob"]
    codes = [row[1] for row in rows]
    assert all(re.fullmatch(r"([2-9A-HJ-NP-Z]{4}-){3}[2-9A-HJ-NP-Z]{4}", c) for c in codes), codes
    assert len(set(codes)) == 2
    week = datetime.now(UTC) + timedelta(days=7)
    for row in rows:
        until = datetime.strptime(row[2], "%Y-%m-%d %H:%M UTC").replace(tzinfo=UTC)
        assert timedelta(0) <= week - until < timedelta(minutes=5)
    # Only each code's hash is stored, with its user.
    database = env["BFF_DATABASE_URL"].removeprefix("sqlite://")
    with sqlite3.connect(database) as db:
        stored = db.execute(
            "SELECT u.username, e.code_hash FROM oidc_expected e JOIN users u ON u.id = e.user_id"
        ).fetchall()
    assert sorted(stored) == [
        ("ann", oidc.link_code_hash(codes[0])),
        ("bob", oidc.link_code_hash(codes[1])),
    ]
    assert done.stderr.splitlines() == [
        "root: An admin account is linked by its subject only: enter or pick the subject.",
        "nobody\\x1b]0;x\\x07: no user has this username",
    ]
    verified = bff("audit", "verify")
    assert verified.returncode == 0 and "5 entries verified" in verified.stdout  # 3 + ann, bob
    unset = {k: v for k, v in env.items() if not k.startswith("BFF_OIDC")}
    off = subprocess.run(
        [sys.executable, "-m", "bff", "users", "expect-sso", "ann"],
        env=unset, cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert off.returncode == 2 and "not configured" in off.stderr
