"""Single sign-on through a real OpenID Provider (npm oidc-provider on 127.0.0.1): the whole
flow, state and code replays, provisioning, role mapping, the provider's MFA, a rotated key,
an unreachable provider, and (through a tiny issuer the test controls) forged ID tokens.
Linking accounts, the browser binding, the throttle and the refusals of issue 47:
tests/auth/test_oidc_linking.py."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from quart import Quart
from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.audit.service import flush
from bff.auth.sessions import session_id_of
from bff.oidc.models import OidcLink, OidcSession
from bff.users import repository as users_repository
from bff.users.models import Role, User
from tests.auth.oidc_support import (
    ForgingIssuer,
    OidcProvider,
    account,
    b64,
    path_of,
    provider_sign_in,
    query_of,
    running_provider,
)
from tests.conftest import make_settings, started_app
from tests.factories import make_staff, make_user
from tests.mfa.helpers import call, enrol_totp, login, second_step

pytestmark = pytest.mark.database

ACCOUNTS = {
    "dr.alice": account("Alice Doctor", ["Doctors", "Staff"], "dr.alice"),
    "nurse.bob": account("Bob Nurse", ["Nurses"], "nurse.bob"),
    "visitor": account("Vera Visitor", ["Visitors"], "visitor"),
    "switcher": account("Sam Switch", ["Doctors"], "switcher"),
    # Provisioning: the admin group alone, and beside another role.
    "it.chief": account("IT Chief", ["Portal-Admins"], "it.chief"),
    "it.deputy": account("IT Deputy", ["Portal-Admins", "Nurses"], "it.deputy"),
    # Two provider users whose username claims are one username; one signing in in two tabs.
    "twin.one": account("Twin One", ["Nurses"], "nurse.twin"),
    "twin.two": account("Twin Two", ["Nurses"], "nurse.twin"),
    "two.tabs": account("Two Tabs", ["Doctors"], "dr.tabs"),
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    with running_provider(tmp_path_factory.mktemp("oidc"), ACCOUNTS) as running:
        yield running


def sso_app(database_url: str, run_dir: Path, **settings: Any) -> Any:
    return started_app(make_settings(database_url, run_dir, **settings))


@pytest.fixture
async def app(database_url: str, run_dir: Path, provider: OidcProvider) -> AsyncIterator[Quart]:
    async with sso_app(database_url, run_dir, **provider.settings()) as started:
        yield started


async def start(client: Client) -> str:
    """GET /api/auth/oidc/start: the provider's authorization URL (a state cookie is set)."""
    response = await call(client, "GET", "/api/auth/oidc/start")
    assert response.status_code == 303, await response.get_data()
    assert "bff_oidc=" in response.headers["set-cookie"]
    assert "HttpOnly" in response.headers["set-cookie"]
    return str(response.headers["location"])


async def callback(client: Client, url: str) -> str:
    """The portal's answer to the provider's redirect: where it sends the browser."""
    response = await call(client, "GET", path_of(url))
    assert response.status_code == 303, await response.get_data()
    return str(response.headers["location"])


async def complete(client: Client, location: str) -> Any:
    assert location.startswith("/login#sso="), location
    response = await call(
        client, "POST", "/api/auth/oidc/complete", json={"code": location.split("=", 1)[1]}
    )
    assert response.status_code == 200, await response.get_data()
    return await response.get_json()


async def link(user: User, subject: str, issuer: str) -> None:
    """Link user to the provider's subject as an admin's binding would."""
    await OidcLink.create(user=user, issuer=issuer, subject=subject)


async def sign_in(client: Client, username: str, *, mfa: bool = False) -> Any:
    """The whole flow: the portal, the provider's login form, back, and the web app's trade."""
    url = await provider_sign_in(await start(client), username, mfa=mfa)
    return await complete(client, await callback(client, url))


async def audit(operation: str) -> list[AuditLog]:
    return await AuditLog.filter(operation=operation).order_by("id")


async def test_the_whole_flow_of_a_linked_user(client: Client, provider: OidcProvider) -> None:
    user = await make_user(Role.DOCTOR, username="dr.alice", name="Old Name")
    await link(user, "dr.alice", provider.issuer)
    url = await provider_sign_in(await start(client), "dr.alice")
    assert set(query_of(url)) >= {"code", "state"}
    location = await callback(client, url)
    body = await complete(client, location)
    assert body["user"]["id"] == user.id and body["user"]["name"] == "Alice Doctor"
    me = await call(client, "GET", "/api/auth/me", body["token"])
    assert me.status_code == 200
    [entry] = await audit("login")
    assert entry.user_id == user.id and "method=oidc" in entry.details
    assert "subject=dr.alice" in entry.details
    # The one-time code is spent.
    again = await call(
        client, "POST", "/api/auth/oidc/complete", json={"code": location.split("=", 1)[1]}
    )
    assert again.status_code == 401
    assert (await again.get_json())["message"] == "Your sign-in has expired. Please sign in again."
    # Signing out of the portal sends the browser to the provider's end-session endpoint.
    out = await call(client, "POST", "/api/auth/logout", body["token"])
    end = (await out.get_json())["endSessionUrl"]
    assert end.startswith(client.app.extensions["bff"].oidc.issuer + "/session/end?")
    assert "post_logout_redirect_uri=http%3A%2F%2Flocalhost%3A8000%2Flogin" in end


async def test_an_admin_links_sees_and_removes_the_link(client: Client, app: Quart) -> None:
    settings = app.extensions["bff"].settings
    admin = await make_staff(settings, Role.ADMIN)
    bob = await make_user(Role.NURSE, username="nurse.bob")
    bound = await call(
        client, "PUT", f"/api/users/{bob.id}/sso-link", admin.token, json={"subject": "nurse.bob"}
    )
    assert bound.status_code == 200, await bound.get_data()
    assert any("changed=sso-linked by=admin" in e.details for e in await audit("user_update"))
    await sign_in(client, "nurse.bob")
    shown = await call(client, "GET", f"/api/users/{bob.id}", admin.token)
    assert (await shown.get_json())["user"]["ssoLinked"] is True
    sso = await (await call(client, "GET", f"/api/users/{bob.id}/sso", admin.token)).get_json()
    assert sso["subject"] == "nurse.bob" and sso["enabled"] is True
    removed = await call(client, "DELETE", f"/api/users/{bob.id}/sso-link", admin.token)
    assert removed.status_code == 200
    shown = await call(client, "GET", f"/api/users/{bob.id}", admin.token)
    assert (await shown.get_json())["user"]["ssoLinked"] is False
    assert any("sso-unlinked" in e.details for e in await audit("user_update"))
    again = await call(client, "DELETE", f"/api/users/{bob.id}/sso-link", admin.token)
    assert again.status_code == 404
    refused = await call(client, "DELETE", f"/api/users/{bob.id}/sso-link", None)
    assert refused.status_code == 401


async def test_provisioning_off_signs_in_no_one_unlinked(client: Client) -> None:
    """A subject linked to no account gets an offer to link one (tests/auth/test_oidc_linking.py),
    never a sign-in."""
    url = await provider_sign_in(await start(client), "dr.alice")
    assert (await callback(client, url)).startswith("/login#sso-link=")
    [entry] = await audit("login_failed")
    assert "reason=not_linked" in entry.details and entry.user_id is None
    assert not await User.exists(username="dr.alice")


async def test_provisioning_on_creates_then_a_role_change_ends_the_other_sessions(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    async with sso_app(database_url, run_dir, **provider.settings(oidc_provision="on")) as app:
        client = app.test_client()
        first = await sign_in(client, "switcher")
        user = await User.get(username="switcher")
        assert user.role == Role.DOCTOR and first["user"]["role"] == "doctor"
        assert any("method=oidc" in e.details for e in await audit("user_create"))
        # Same role again: the first session lives on.
        await sign_in(client, "switcher")
        assert (await call(client, "GET", "/api/auth/me", first["token"])).status_code == 200
        provider.set_groups("switcher", "Sam Switch", ["Nurses"])
        try:
            second = await sign_in(client, "switcher")
        finally:
            provider.set_groups("switcher", "Sam Switch", ["Doctors"])
        assert second["user"]["role"] == "nurse"
        assert (await User.get(id=user.id)).role == Role.NURSE
        assert (await call(client, "GET", "/api/auth/me", first["token"])).status_code == 401
        assert (await call(client, "GET", "/api/auth/me", second["token"])).status_code == 200
        assert await OidcLink.filter(user_id=user.id).count() == 1


async def test_provisioning_never_makes_an_admin(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """With BFF_OIDC_PROVISION=on a provider user in the admin group became a new full admin.
    An admin account is made by an admin only: a first sign-in takes the highest role short of
    admin, and a subject mapped to admin alone is refused (`admin_role`), nothing created."""
    async with sso_app(database_url, run_dir, **provider.settings(oidc_provision="on")) as app:
        client = app.test_client()
        url = await provider_sign_in(await start(client), "it.chief")
        assert await callback(client, url) == "/login?sso=admin_role"
        assert not await User.exists(username="it.chief")
        [refused] = await audit("login_failed")
        assert "reason=admin_role" in refused.details and "subject=it.chief" in refused.details
        for _ in range(2):  # created, then signed in again: a nurse both times
            assert (await sign_in(client, "it.deputy"))["user"]["role"] == "nurse"
        assert (await User.get(username="it.deputy")).role == Role.NURSE
        assert not await User.exists(role=Role.ADMIN)


async def test_two_first_sign_ins_at_once_with_one_username(
    database_url: str, run_dir: Path, provider: OidcProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first sign-ins at once whose username claims are one username: the second insert
    of that username answered 500 (IntegrityError). On PostgreSQL both look here before either
    creates (each look waits for the other's; SQLite's write lock puts them one after the
    other). The loser ends as if it came second: another subject gets the offer to link, never
    merged into the account; the same subject in two tabs signs in to its one account."""
    async with sso_app(database_url, run_dir, **provider.settings(oidc_provision="on")) as app:
        if not app.extensions["bff"].settings.is_sqlite:
            looked = Counter[str]()
            together = asyncio.Barrier(2)
            look = users_repository.username_taken

            async def look_together(username: str, except_id: int | None = None) -> bool:
                taken = await look(username, except_id)
                looked[username] += 1
                if looked[username] <= 2:  # the first two looks at a username: at once
                    await asyncio.wait_for(together.wait(), 10)
                return taken

            monkeypatch.setattr(users_repository, "username_taken", look_together)

        async def at_once(*who: str) -> list[tuple[Client, str]]:
            """Each provider user signs in at the provider in a browser of their own, then
            the portal's callbacks run at once: each browser and where it is sent."""
            browsers = [app.test_client() for _ in who]
            urls = [
                await provider_sign_in(await start(b), w)
                for b, w in zip(browsers, who, strict=True)
            ]
            back = await asyncio.gather(
                *(callback(b, u) for b, u in zip(browsers, urls, strict=True))
            )
            return list(zip(browsers, back, strict=True))

        answers = await at_once("twin.one", "twin.two")
        [(winner, signed_in)] = [a for a in answers if a[1].startswith("/login#sso=")]
        assert [a for a in answers if a[1].startswith("/login#sso-link=")], answers
        assert (await complete(winner, signed_in))["user"]["username"] == "nurse.twin"
        twin = await User.get(username="nurse.twin")
        assert await OidcLink.filter(user_id=twin.id).count() == 1
        for browser, location in await at_once("two.tabs", "two.tabs"):
            assert (await complete(browser, location))["user"]["username"] == "dr.tabs"
        tabs = await User.get(username="dr.tabs")
        assert [link.subject for link in await OidcLink.filter(user_id=tabs.id)] == ["two.tabs"]
        assert await User.filter(username__startswith="sso-").count() == 0


async def test_no_mapped_role_no_access(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    async with sso_app(database_url, run_dir, **provider.settings(oidc_provision="on")) as app:
        client = app.test_client()
        url = await provider_sign_in(await start(client), "visitor")
        assert await callback(client, url) == "/login?sso=no_role"
        [entry] = await audit("login_failed")
        assert "reason=no_role" in entry.details and "subject=visitor" in entry.details
        assert not await User.exists(username="visitor")


async def test_wrong_or_replayed_state_and_a_replayed_code_are_refused(
    client: Client, provider: OidcProvider
) -> None:
    await link(await make_user(Role.DOCTOR, username="dr.alice"), "dr.alice", provider.issuer)
    url = await provider_sign_in(await start(client), "dr.alice")
    params = query_of(url)
    wrong = f"/api/auth/oidc/callback?code={params['code']}&state=not-the-state"
    assert await callback(client, wrong) == "/login?sso=bad_state"
    # The refusal cleared the cookie: even the right state is no good now.
    assert await callback(client, url) == "/login?sso=bad_state"
    # A fresh sign-in, completed once; its callback replayed (with its cookie) is refused.
    url = await provider_sign_in(await start(client), "dr.alice")
    cookie = client.cookie_jar
    saved = [c for c in cookie if c.name == "bff_oidc"]
    await complete(client, await callback(client, url))
    for c in saved:
        cookie.set_cookie(c)
    assert await callback(client, url) == "/login?sso=bad_state"
    # The spent code with a fresh state: the provider refuses it.
    fresh = query_of(await start(client))["state"]
    replayed = f"/api/auth/oidc/callback?code={params['code']}&state={fresh}"
    assert await callback(client, replayed) == "/login?sso=invalid_token"
    reasons = [e.details for e in await audit("login_failed")]
    assert sum("reason=bad_state" in r for r in reasons) == 1  # the others counted (issue 47)
    assert any("reason=invalid_token" in r and "code refused" in r for r in reasons)
    await flush()
    reasons = [e.details for e in await audit("login_failed")]
    assert any("reason=bad_state" in r and r.endswith("repeated=2 within 60s") for r in reasons)
    # The provider's own refusal comes back readable.
    await start(client)
    assert await callback(client, "/api/auth/oidc/callback?error=access_denied") == (
        "/login?sso=provider_error"
    )


async def test_the_providers_mfa_replaces_the_local_second_factor(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    settings = provider.settings(mfa_required_roles="doctor")
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        await link(await make_user(Role.DOCTOR, username="dr.alice"), "dr.alice", provider.issuer)
        # Without MFA at the provider: the local policy applies (no factor yet: enrol first).
        body = await sign_in(client, "dr.alice")
        assert body["mfaEnrolmentRequired"] is True
        # With MFA at the provider (amr otp): a full session.
        body = await sign_in(client, "dr.alice", mfa=True)
        assert "mfaEnrolmentRequired" not in body and body["token"]
        # A user with a factor, without MFA at the provider: the second step is asked.
        _, recovery_codes, _ = await enrol_totp(client, body["token"])
        body = await sign_in(client, "dr.alice")
        assert body["mfaRequired"] is True and "token" not in body
        # Completed locally, the session is still the provider's: its sign-out goes there
        # (and a back-channel logout of its sid ends it).
        done = await second_step(client, body["mfaToken"], code=recovery_codes[0])
        assert done.status_code == 200, await done.get_data()
        token = (await done.get_json())["token"]
        assert await OidcSession.filter(session_id=session_id_of(token)).exists()
        login = (await audit("login"))[-1]
        assert "method=oidc" in login.details and "mfa=local" in login.details
        out = await call(client, "POST", "/api/auth/logout", token)
        assert (await out.get_json())["endSessionUrl"]
        body = await sign_in(client, "dr.alice", mfa=True)
        assert body["token"]


async def test_a_rotated_signing_key_is_fetched(client: Client, provider: OidcProvider) -> None:
    await link(await make_user(Role.NURSE, username="nurse.bob"), "nurse.bob", provider.issuer)
    await sign_in(client, "nurse.bob")  # the first key is cached
    provider.control("/test/configure", {"rotate": True})
    body = await sign_in(client, "nurse.bob")
    assert body["token"]


async def test_an_unreachable_provider_is_a_clear_message(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    dead = provider.settings(oidc_issuer="http://127.0.0.1:9", oidc_timeout_seconds=2)
    async with sso_app(database_url, run_dir, **dead) as app:
        client = app.test_client()
        response = await call(client, "GET", "/api/auth/oidc/start")
        assert response.status_code == 303
        assert response.headers["location"] == "/login?sso=unavailable"


async def test_local_passwords_follow_the_setting(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    settings = provider.settings(oidc_local_passwords="admins")
    async with sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        config = await (await call(client, "GET", "/api/auth/oidc/config")).get_json()
        assert config == {
            "enabled": True,
            "displayName": "Test Hospital",
            "localPasswords": "admins",
        }
        nurse = await make_user(Role.NURSE)
        admin = await make_user(Role.ADMIN)
        refused = await login(client, nurse.username)
        assert refused.status_code == 403
        assert (await refused.get_json())["message"] == "Sign in with Test Hospital."
        assert (await login(client, admin.username)).status_code == 200
        assert (await login(client, nurse.username, "wrong password")).status_code == 401


async def test_not_configured(client: Client, database_url: str, run_dir: Path) -> None:
    async with sso_app(database_url, run_dir) as app:
        plain = app.test_client()
        config = await (await call(plain, "GET", "/api/auth/oidc/config")).get_json()
        assert config["enabled"] is False
        assert (await call(plain, "GET", "/api/auth/oidc/start")).status_code == 404


async def test_forged_id_tokens_are_refused(database_url: str, run_dir: Path) -> None:
    forging = ForgingIssuer()
    async with forging as issuer, sso_app(database_url, run_dir, **forging.settings()) as app:
        client = app.test_client()

        async def attempt(make: Any) -> str:
            nonce = query_of(authorize := await start(client))["nonce"]
            issuer.id_token = make(nonce)
            state = query_of(authorize)["state"]
            return await callback(client, f"/api/auth/oidc/callback?code=c&state={state}")

        other = ForgingIssuer().key
        cases = {
            "wrong audience": lambda n: issuer.sign(issuer.claims(n, aud="someone-else")),
            "expired": lambda n: issuer.sign(issuer.claims(n, exp=int(time.time()) - 120)),
            "wrong nonce": lambda n: issuer.sign(issuer.claims("another-nonce")),
            "no nonce": lambda n: issuer.sign(issuer.claims(None)),
            "wrong issuer": lambda n: issuer.sign(issuer.claims(n, iss="http://evil")),
            "alg none": lambda n: issuer.unsigned(issuer.claims(n)),
            "HS256 with the public key": lambda n: issuer.hs256_with_public_key(issuer.claims(n)),
            "another key": lambda n: issuer.sign(issuer.claims(n), other),
        }
        for name, make in cases.items():
            assert await attempt(make) == "/login?sso=invalid_token", name
        assert not await User.exists(username="forged.user")
        await flush()  # one entry, then one with the count of the others (issue 47)
        first, repeated = await audit("login_failed")
        assert all("reason=invalid_token" in e.details for e in (first, repeated))
        assert repeated.details.endswith(f"repeated={len(cases) - 1} within 60s")
        # The same issuer's properly signed token is accepted: the cases above failed on
        # what they changed.
        location = await attempt(lambda n: issuer.sign(issuer.claims(n)))
        assert (await complete(client, location))["user"]["username"] == "forged.user"


async def test_backchannel_logout_tokens_are_checked(database_url: str, run_dir: Path) -> None:
    forging = ForgingIssuer()
    async with forging as issuer, sso_app(database_url, run_dir, **forging.settings()) as app:
        client = app.test_client()
        nonce_url = await start(client)
        issuer.id_token = issuer.sign(issuer.claims(query_of(nonce_url)["nonce"]))
        state = query_of(nonce_url)["state"]
        body = await complete(
            client, await callback(client, f"/api/auth/oidc/callback?code=c&state={state}")
        )

        async def post(token: str) -> int:
            response = await client.post(
                "/api/auth/oidc/backchannel-logout", form={"logout_token": token}
            )
            return response.status_code

        events = "http://schemas.openid.net/event/backchannel-logout"
        assert await post(issuer.logout_token(nonce="n")) == 400
        assert await post(issuer.logout_token(events={events + "x": {}})) == 400
        assert await post(issuer.logout_token(aud="other")) == 400
        assert await post(issuer.logout_token(sub=None)) == 400  # neither sub nor sid
        assert await post(issuer.unsigned({"iss": issuer.issuer})) == 400
        assert (await call(client, "GET", "/api/auth/me", body["token"])).status_code == 200
        token = issuer.logout_token()
        assert await post(token) == 200
        assert (await call(client, "GET", "/api/auth/me", body["token"])).status_code == 401
        assert await post(token) == 400  # its jti was used


def hostile_tokens(kid: str) -> list[str]:
    """Tokens of every shape anyone can post: headers that are JSON but not an object (`null`,
    a list, a number, text), odd `alg` and `kid` values, payloads that are not objects, parts
    that are not base64 or not UTF-8, too few or too many parts."""
    headers: list[Any] = [
        None,
        ["a"],
        1,
        "RS256",
        True,
        {},
        {"alg": ["RS256"]},
        {"alg": {"RS256": 1}},
        {"alg": "RS256", "kid": {}},
        {"alg": "RS256", "kid": [kid]},
        {"alg": "RS256", "kid": kid, "crit": "exp"},
        {"alg": "RS256", "kid": kid, "b64": False, "crit": ["b64"]},
    ]
    payloads = ["e30", "bnVsbA", "WyJhIl0"]  # {}, null, ["a"]
    tokens = [f"{b64(json.dumps(h).encode())}.{p}.AA" for h in headers for p in payloads]
    return [
        *tokens,
        "bnVsbA.e30.AA",  # the review's: a header of `null`
        "WyJhIl0.e30.AA",  # and of a list
        ".",
        "..",
        "e30",
        "e30.e30",
        "a.b.c.d.e",
        "!!.e30.AA",
        b64(b"\xff\xfe") + ".e30.AA",
        "\u00e9.e30.AA",
    ]


async def test_tokens_of_any_shape_are_refused_never_a_500(
    database_url: str, run_dir: Path
) -> None:
    """The back-channel logout is public: a logout token whose header is JSON but not an object
    answered 500 with a traceback (the refusal's message read the header's `alg`). Every
    hostile shape is a 400 there, and, as an ID token from the token endpoint, `invalid_token`."""
    forging = ForgingIssuer()
    settings = forging.settings(login_max_failures=1000, login_max_failures_per_address=1000)
    async with forging as issuer, sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        tokens = hostile_tokens(issuer.key.kid)
        for token in tokens:
            response = await client.post(
                "/api/auth/oidc/backchannel-logout", form={"logout_token": token}
            )
            assert response.status_code == 400, (token, await response.get_data())
        for token in tokens:
            state = query_of(await start(client))["state"]
            issuer.id_token = token
            location = await callback(client, f"/api/auth/oidc/callback?code=c&state={state}")
            assert location == "/login?sso=invalid_token", token


async def test_refusals_are_throttled_like_password_sign_ins(
    database_url: str, run_dir: Path, provider: OidcProvider
) -> None:
    """Codes the provider refuses are counted per browser like wrong passwords (429 "busy"
    beyond the limit, a browser that signed in here before included); a state used before or
    forged (a reload, the Back button) is refused and audited but not counted, so staff behind
    one address never lock each other out that way."""
    async with sso_app(database_url, run_dir, **provider.settings(login_max_failures=3)) as app:
        client = app.test_client()
        bad = "/api/auth/oidc/callback?code=c&state=forged"
        for _ in range(5):
            assert await callback(client, bad) == "/login?sso=bad_state"
        await link(await make_user(Role.NURSE, username="nurse.bob"), "nurse.bob", provider.issuer)
        assert (await sign_in(client, "nurse.bob"))["token"]
        for _ in range(3):  # a code the provider never issued, with a genuine state
            state = query_of(await start(client))["state"]
            refused = f"/api/auth/oidc/callback?code=not-issued&state={state}"
            assert await callback(client, refused) == "/login?sso=invalid_token"
        state = query_of(await start(client))["state"]
        refused = f"/api/auth/oidc/callback?code=not-issued&state={state}"
        assert await callback(client, refused) == "/login?sso=busy"
        await flush()  # each reason once, then the count of its repeats (issue 47)
        reasons = [e.details for e in await audit("login_failed")]
        assert len(reasons) == 5, reasons
        assert any("bad_state" in r and r.endswith("repeated=4 within 60s") for r in reasons)
        assert any("invalid_token" in r and r.endswith("repeated=2 within 60s") for r in reasons)


async def test_a_private_key_instead_of_a_secret(
    database_url: str, run_dir: Path, provider: OidcProvider, tmp_path: Path
) -> None:
    """BFF_OIDC_PRIVATE_KEY_FILE: the portal authenticates to the token endpoint with a JWT
    signed by its own key (private_key_jwt), which the provider checks with the public half."""
    key = RSAKey.generate_key(2048)
    pem = tmp_path / "portal-key.pem"
    pem.write_bytes(key.as_pem(private=True))
    public = {**key.as_dict(private=False), "use": "sig", "alg": "RS256"}
    provider.control(
        "/test/configure",
        {
            "client": {
                "token_endpoint_auth_method": "private_key_jwt",
                "token_endpoint_auth_signing_alg": "RS256",
                "jwks": {"keys": [public]},
            }
        },
    )
    try:
        settings = provider.settings(oidc_client_secret="", oidc_private_key_file=str(pem))
        async with sso_app(database_url, run_dir, **settings) as app:
            client = app.test_client()
            nurse = await make_user(Role.NURSE, username="nurse.bob")
            await link(nurse, "nurse.bob", provider.issuer)
            body = await sign_in(client, "nurse.bob")
            assert body["token"]
    finally:
        provider.control(
            "/test/configure", {"client": {"token_endpoint_auth_method": "client_secret_basic"}}
        )


async def test_an_unreachable_token_endpoint_is_a_clear_message(
    database_url: str, run_dir: Path
) -> None:
    """Discovery answers but the token endpoint does not (a firewall, a provider half down): the
    browser comes back to /login with a readable reason, audited, never a 500."""
    forging = ForgingIssuer()
    forging.token_endpoint = "http://127.0.0.1:9/token"  # nothing listens there
    settings = forging.settings(oidc_timeout_seconds=2)
    async with forging, sso_app(database_url, run_dir, **settings) as app:
        client = app.test_client()
        state = query_of(await start(client))["state"]
        location = await callback(client, f"/api/auth/oidc/callback?code=c&state={state}")
        assert location == "/login?sso=unavailable"
        [failure] = await audit("login_failed")
        assert "unavailable" in failure.details
