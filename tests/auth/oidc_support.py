"""Single sign-on test support: the real OpenID Provider (npm oidc-provider,
tests/auth/oidc_provider/provider.mjs) on a free port of 127.0.0.1, its own login form driven
with httpx as a browser would, and, for the forged-token cases only, a tiny issuer whose keys
and token answers the test controls (a test of the portal's checks, never of the protocol)."""

from __future__ import annotations

import base64
import json
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from aiohttp import web
from joserfc import jwt
from joserfc.jwk import RSAKey

from tools.devserver import free_port, kill_group, wait_for_port

PROVIDER_DIR = Path(__file__).parent / "oidc_provider"
CLIENT_ID = "portal"
CLIENT_SECRET = "test-client-secret-" + "x" * 24
PORTAL = "http://localhost:8000"  # the test app's default BFF_PUBLIC_URL (a loopback host)
ROLE_MAP = "admin=Portal-Admins,doctor=Doctors,nurse=Nurses,assistant=Assistants"
PROVIDER_PASSWORD = "provider-password"


def account(name: str, groups: list[str], username: str | None = None) -> dict[str, Any]:
    """An account of the provider: its password and claims."""
    return {
        "password": PROVIDER_PASSWORD,
        "claims": {
            "name": name,
            "preferred_username": username or name.lower().replace(" ", "."),
            "groups": groups,
        },
    }


class OidcProvider:
    """The running provider: its issuer and its test controls."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port
        self.issuer = f"http://127.0.0.1:{port}"

    def control(self, path: str, data: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(self.issuer + path, json=data, timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def set_groups(self, account_id: str, name: str, groups: list[str]) -> None:
        claims = account(name, groups, account_id)["claims"]
        self.control(f"/test/accounts/{account_id}", {"claims": claims})

    def settings(self, **overrides: Any) -> dict[str, Any]:
        """BFF settings that use this provider."""
        values: dict[str, Any] = {
            "oidc_issuer": self.issuer,
            "oidc_client_id": CLIENT_ID,
            "oidc_client_secret": CLIENT_SECRET,
            "oidc_scopes": "openid profile groups",
            "oidc_display_name": "Test Hospital",
            "oidc_role_map": ROLE_MAP,
            "oidc_mfa_amr": "otp",
            "login_max_failures": 50,
        }
        values.update(overrides)
        return values


@contextmanager
def running_provider(
    tmp: Path, accounts: dict[str, Any], portal: str = PORTAL
) -> Iterator[OidcProvider]:
    """Start provider.mjs on a free port of 127.0.0.1 (npm ci'd by the Makefile)."""
    node = shutil.which("node")
    assert node, "node is needed for the OpenID Provider"
    assert (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir(), (
        "run `make oidc-provider` (npm ci in tests/auth/oidc_provider)"
    )
    port = free_port()
    config = tmp / f"oidc-provider-{port}.json"
    config.write_text(
        json.dumps(
            {
                "port": port,
                "client": {
                    "client_id": CLIENT_ID,
                    "client_secret": CLIENT_SECRET,
                    "redirect_uris": [portal + "/api/auth/oidc/callback"],
                    "post_logout_redirect_uris": [portal + "/login"],
                },
                "accounts": accounts,
            }
        )
    )
    log = (tmp / f"oidc-provider-{port}.log").open("wb")
    process = subprocess.Popen(  # noqa: S603 - node with our own script
        [node, str(PROVIDER_DIR / "provider.mjs"), str(config)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process, 30)
        yield OidcProvider(process, port)
    finally:
        kill_group(process)
        log.close()


async def provider_sign_in(
    authorize_url: str,
    username: str,
    *,
    mfa: bool = False,
    browser: httpx.AsyncClient | None = None,
) -> str:
    """Sign in on the provider's own login form as a browser would; return the URL it sends
    the browser back to (the portal's callback, with code and state)."""
    own = browser is None
    browser = browser or httpx.AsyncClient(timeout=10)
    try:
        url = authorize_url
        for _ in range(10):
            response = await browser.get(url)
            if response.status_code == 200 and "<form" in response.text:
                break
            assert response.status_code in (302, 303), (response.status_code, response.text[:300])
            url = urljoin(url, response.headers["location"])
        else:
            raise AssertionError("no login form")
        action = re.search(r'action="([^"]+)"', response.text)
        assert action
        form = {"username": username, "password": PROVIDER_PASSWORD}
        if mfa:
            form["mfa"] = "1"
        response = await browser.post(urljoin(url, action.group(1)), data=form)
        for _ in range(10):
            assert response.status_code in (302, 303), (response.status_code, response.text[:300])
            url = urljoin(str(response.url), response.headers["location"])
            if "/api/auth/oidc/callback" in url:
                return url
            response = await browser.get(url)
        raise AssertionError("the provider never sent the browser back")
    finally:
        if own:
            await browser.aclose()


def path_of(url: str) -> str:
    """The path and query of a URL (what the test client asks for)."""
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


# --- A tiny issuer for forged tokens (the negative cases only) ---------------------------------


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class ForgingIssuer:
    """Discovery, a JWKS with a key the test holds, and a token endpoint that answers
    whatever ID token the test set."""

    def __init__(self) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "forging-key", "use": "sig"})
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.id_token = ""
        self.token_endpoint = ""  # where discovery says the token endpoint is (default: here)
        self.jwks_fetches = 0  # how often the portal fetched the keys
        self._runner: web.AppRunner | None = None

    def settings(self, **overrides: Any) -> dict[str, Any]:
        values: dict[str, Any] = {
            "oidc_issuer": self.issuer,
            "oidc_client_id": CLIENT_ID,
            "oidc_client_secret": CLIENT_SECRET,
            "oidc_role_map": ROLE_MAP,
            "oidc_provision": "on",
            "login_max_failures": 50,
        }
        values.update(overrides)
        return values

    def claims(self, nonce: str | None, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "sub": "forged-subject",
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "preferred_username": "forged.user",
            "name": "Forged User",
            "groups": ["Doctors"],
        }
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def sign(self, claims: dict[str, Any], key: RSAKey | None = None) -> str:
        key = key or self.key
        return jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)

    def unsigned(self, claims: dict[str, Any]) -> str:
        header = b64(json.dumps({"alg": "none", "kid": self.key.kid}).encode())
        return f"{header}.{b64(json.dumps(claims).encode())}."

    def hs256_with_public_key(self, claims: dict[str, Any]) -> str:
        import hashlib
        import hmac

        public = self.key.as_pem(private=False)
        header = b64(json.dumps({"alg": "HS256", "kid": self.key.kid}).encode())
        body = b64(json.dumps(claims).encode())
        mac = hmac.new(public, f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{b64(mac)}"

    def logout_token(self, **changes: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "iat": now,
            "jti": secrets.token_hex(8),
            "sub": "forged-subject",
            "events": {"http://schemas.openid.net/event/backchannel-logout": {}},
        }
        claims.update(changes)
        return self.sign({k: v for k, v in claims.items() if v is not None})

    async def __aenter__(self) -> ForgingIssuer:
        app = web.Application()
        app.router.add_get("/.well-known/openid-configuration", self._discovery)
        app.router.add_get("/jwks", self._jwks)
        app.router.add_post("/token", self._token)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _discovery(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "issuer": self.issuer,
                "authorization_endpoint": self.issuer + "/auth",
                "token_endpoint": self.token_endpoint or self.issuer + "/token",
                "jwks_uri": self.issuer + "/jwks",
                "id_token_signing_alg_values_supported": ["RS256"],
            }
        )

    async def _jwks(self, request: web.Request) -> web.Response:
        self.jwks_fetches += 1
        return web.json_response({"keys": [self.key.as_dict(private=False)]})

    async def _token(self, request: web.Request) -> web.Response:
        answer = {"access_token": "a", "token_type": "Bearer", "expires_in": 60}
        return web.json_response({**answer, "id_token": self.id_token})
