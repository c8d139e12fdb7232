"""Back-Channel Logout from the real OpenID Provider: signing out there ends the portal's
sessions of that user at once, live (session:revoked, the socket closed)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from bff.audit.models import AuditLog
from bff.users.models import Role
from tests.auth.oidc_support import (
    CLIENT_ID,
    OidcProvider,
    account,
    path_of,
    provider_sign_in,
    running_provider,
)
from tests.auth.test_oidc import link
from tests.conftest import make_settings
from tests.factories import make_user
from tests.live.conftest import LiveServer, run_live

pytestmark = pytest.mark.database


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    accounts = {"dr.dana": account("Dana Doctor", ["Doctors"], "dr.dana")}
    with running_provider(tmp_path_factory.mktemp("oidc"), accounts) as running:
        yield running


@pytest.fixture
async def live(
    database_url: str, run_dir: Path, tmp_path: Path, provider: OidcProvider
) -> AsyncIterator[LiveServer]:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", **provider.settings()
    )
    async for server in run_live(settings):
        yield server


async def test_signing_out_at_the_provider_ends_the_live_session(
    live: LiveServer, provider: OidcProvider
) -> None:
    backchannel = live.base + "/api/auth/oidc/backchannel-logout"
    provider.control("/test/configure", {"client": {"backchannel_logout_uri": backchannel}})
    user = await make_user(Role.DOCTOR, username="dr.dana")
    await link(user, "dr.dana", provider.issuer)  # an admin's binding: never by a claim alone
    client = live.app.test_client()
    async with httpx.AsyncClient(timeout=10) as browser:
        started = await client.get("/api/auth/oidc/start")
        url = await provider_sign_in(started.headers["location"], "dr.dana", browser=browser)
        back = await client.get(path_of(url))
        code = back.headers["location"].split("#sso=", 1)[1]
        body = await (await client.post("/api/auth/oidc/complete", json={"code": code})).get_json()
        token = body["token"]
        listener = await live.listener(token)
        assert (
            await client.get("/api/auth/me", headers={"x-auth-token": token})
        ).status_code == 200

        # Sign out at the provider (its own confirmation form), as the user would elsewhere.
        page = await browser.get(provider.issuer + "/session/end", params={"client_id": CLIENT_ID})
        assert page.status_code == 200, page.text[:300]
        form = re.search(r'<form[^>]*action="([^"]+)"', page.text)
        xsrf = re.search(r'name="xsrf" value="([^"]+)"', page.text)
        assert form and xsrf, page.text[:500]
        confirmed = await browser.post(
            urljoin(str(page.url), form.group(1)), data={"xsrf": xsrf.group(1), "logout": "yes"}
        )
        assert confirmed.status_code in (200, 302, 303), confirmed.text[:300]

    revoked = await listener.wait_for("session:revoked", within=10)
    assert revoked == {"reason": "logout"}
    await asyncio.wait_for(listener.disconnected.wait(), 10)
    assert (await client.get("/api/auth/me", headers={"x-auth-token": token})).status_code == 401
    [entry] = await AuditLog.filter(operation="logout_all", user_id=user.id)
    assert "method=backchannel" in entry.details
