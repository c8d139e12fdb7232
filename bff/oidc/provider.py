"""The OpenID Provider as this portal sees it: discovery (cached), the signing keys (cached,
fetched again for an unknown `kid`, at most once every KEY_REFETCH_SECONDS), the authorization
request (PKCE, state, nonce) and the code exchange through Authlib's async client on httpx, and
the full check of ID tokens and back-channel logout tokens with joserfc.

Only asymmetric signatures are accepted (RS/PS/ES/EdDSA) by a key of the provider's JWKS:
`alg: none` and an HMAC "signed" with the provider's public key are refused.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from authlib.deprecate import AuthlibDeprecationWarning
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from config.settings import Settings

with warnings.catch_warnings():
    # Authlib 1.9 prefers the httpx2 package and warns once, at this import, when it finds only
    # httpx (pinned as the stack notes advise): a line outside the server's log format.
    warnings.simplefilter("ignore", AuthlibDeprecationWarning)
    from authlib.integrations.httpx_client import AsyncOAuth2Client

ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
LEEWAY_SECONDS = 60  # clock difference allowed on exp/iat
DISCOVERY_SECONDS = 3600  # discovery and keys are fetched again after this long
MAX_TOKEN_AGE = 600  # an ID token or logout token issued longer ago than this is refused
# A token naming a key id the cached keys lack has the keys fetched again (a rotated key), but
# at most once in this long: anyone can post a logout token naming made-up key ids, and each
# must not cost a request to the provider.
KEY_REFETCH_SECONDS = 10.0
LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"


class ProviderUnavailable(Exception):
    """The provider could not be reached or answered something unusable."""


class InvalidToken(Exception):
    """A token failed a check; the message names which (for the audit log, never a secret)."""


@dataclass
class Metadata:
    """What discovery says, with when it was read."""

    document: dict[str, Any]
    read_at: float

    def endpoint(self, name: str) -> str:
        value = self.document.get(name)
        if not isinstance(value, str) or not value.startswith(("https://", "http://")):
            raise ProviderUnavailable(f"discovery has no {name}")
        return value


class Provider:
    """One configured provider, shared by the requests of a process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.issuer = settings.oidc_issuer
        self._metadata: Metadata | None = None
        self._keys: KeySet | None = None
        self._keys_read_at = 0.0
        self._refetched_at: float | None = None  # the last fetch for an unknown key id
        self._lock = asyncio.Lock()
        self._keys_lock = asyncio.Lock()
        self.clock = time.monotonic  # the tests' to set

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.settings.oidc_timeout_seconds)

    async def metadata(self) -> Metadata:
        """The discovery document (cached for an hour)."""
        if self._metadata and self.clock() - self._metadata.read_at < DISCOVERY_SECONDS:
            return self._metadata
        async with self._lock:
            if self._metadata and self.clock() - self._metadata.read_at < DISCOVERY_SECONDS:
                return self._metadata
            url = self.issuer + "/.well-known/openid-configuration"
            document = await self._get_json(url)
            if document.get("issuer") != self.issuer:
                raise ProviderUnavailable("discovery names another issuer")
            self._metadata = Metadata(document, self.clock())
            return self._metadata

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            async with self._http() as http:
                response = await http.get(url, headers={"accept": "application/json"})
            response.raise_for_status()
            data = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise ProviderUnavailable(type(exc).__name__) from None
        if not isinstance(data, dict):
            raise ProviderUnavailable("not a JSON object")
        return data

    async def keys(self) -> KeySet:
        """The provider's signing keys (cached for an hour)."""
        fresh = self.clock() - self._keys_read_at < DISCOVERY_SECONDS
        if self._keys is not None and fresh:
            return self._keys
        async with self._keys_lock:
            fresh = self.clock() - self._keys_read_at < DISCOVERY_SECONDS
            if self._keys is not None and fresh:
                return self._keys
            return await self._fetch_keys()

    async def _fetch_keys(self) -> KeySet:
        metadata = await self.metadata()
        data = await self._get_json(metadata.endpoint("jwks_uri"))
        try:
            keys = KeySet.import_key_set(data)  # type: ignore[arg-type]
        except (JoseError, ValueError, TypeError, KeyError):
            raise ProviderUnavailable("unusable JWKS") from None
        self._keys, self._keys_read_at = keys, self.clock()
        return keys

    async def keys_with(self, kid: str) -> KeySet:
        """The keys, fetched again when none has key id kid (a rotated key), unless they were
        fetched for that reason less than KEY_REFETCH_SECONDS ago (one fetch for any number of
        tokens naming unknown key ids at once)."""
        keys = await self.keys()
        if any(key.kid == kid for key in keys.keys):
            return keys
        async with self._keys_lock:
            if self._keys is not None and any(key.kid == kid for key in self._keys.keys):
                return self._keys  # fetched by a token waiting here before
            now = self.clock()
            last = self._refetched_at
            if last is not None and now - last < KEY_REFETCH_SECONDS and self._keys is not None:
                return self._keys
            self._refetched_at = now
            return await self._fetch_keys()

    def _client(self, metadata: Metadata) -> AsyncOAuth2Client:
        settings = self.settings
        redirect_uri = settings.public_url + "/api/auth/oidc/callback"
        if settings.oidc_private_key_file:
            token_endpoint = metadata.endpoint("token_endpoint")
            client = AsyncOAuth2Client(
                settings.oidc_client_id,
                Path(settings.oidc_private_key_file).read_text(),
                scope=settings.oidc_scopes,
                redirect_uri=redirect_uri,
                code_challenge_method="S256",
                token_endpoint_auth_method=PrivateKeyJWT(token_endpoint, alg="RS256"),
                timeout=settings.oidc_timeout_seconds,
            )
        else:
            client = AsyncOAuth2Client(
                settings.oidc_client_id,
                settings.oidc_client_secret,
                scope=settings.oidc_scopes,
                redirect_uri=redirect_uri,
                code_challenge_method="S256",
                timeout=settings.oidc_timeout_seconds,
            )
        return client

    async def authorization_url(self, state: str, nonce: str, verifier: str) -> str:
        """Where to send the browser: the authorization endpoint with PKCE, state and nonce."""
        metadata = await self.metadata()
        async with self._client(metadata) as client:
            url, _ = client.create_authorization_url(
                metadata.endpoint("authorization_endpoint"),
                state=state,
                nonce=nonce,
                code_verifier=verifier,
            )
        return str(url)

    async def exchange(self, code: str, verifier: str) -> str:
        """Trade the authorization code for tokens; return the ID token (not yet checked)."""
        metadata = await self.metadata()
        try:
            async with self._client(metadata) as client:
                token = await client.fetch_token(
                    metadata.endpoint("token_endpoint"),
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                )
        except httpx.HTTPError as exc:
            raise ProviderUnavailable(type(exc).__name__) from None
        except Exception as exc:  # noqa: BLE001 - Authlib's OAuthError: the provider said no
            error = getattr(exc, "error", type(exc).__name__)
            raise InvalidToken(f"code refused ({error})") from None
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise InvalidToken("no id_token")
        return id_token

    async def end_session_url(self, id_token_hint: str | None = None) -> str | None:
        """The provider's end-session endpoint with the way back to /login, if it has one."""
        try:
            metadata = await self.metadata()
        except ProviderUnavailable:
            return None
        endpoint = metadata.document.get("end_session_endpoint")
        if not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")):
            return None
        params = {
            "client_id": self.settings.oidc_client_id,
            "post_logout_redirect_uri": self.settings.public_url + "/login",
        }
        if id_token_hint:
            params["id_token_hint"] = id_token_hint
        return str(httpx.URL(endpoint, params=params))

    async def _decode(self, token: str) -> jwt.Token:
        """Check a token's signature by the provider's keys (fetched again for an unknown kid,
        at most once every KEY_REFETCH_SECONDS); refuse any algorithm but the asymmetric ones."""
        try:
            header = json.loads(base64.urlsafe_b64decode(_padded(token.split(".")[0])))
        except (ValueError, IndexError):
            raise InvalidToken("malformed") from None
        if not isinstance(header, dict):  # `null`, a list, a number: anyone can post one
            raise InvalidToken("malformed header")
        if header.get("alg") not in ASYMMETRIC:
            raise InvalidToken(f"algorithm {str(header.get('alg'))[:20]!r} refused")
        kid = header.get("kid")
        keys = await self.keys_with(str(kid)[:200]) if kid is not None else await self.keys()
        try:
            return jwt.decode(token, keys, algorithms=list(ASYMMETRIC))
        except JoseError as exc:
            raise InvalidToken(f"signature ({exc.error})") from None

    def _check_claims(self, claims: dict[str, Any], **options: Any) -> None:
        registry = jwt.JWTClaimsRegistry(
            leeway=LEEWAY_SECONDS,
            iss={"essential": True, "value": self.issuer},
            aud={"essential": True, "value": self.settings.oidc_client_id},
            iat={"essential": True},
            sub={"essential": "sub" in options.pop("require", ("sub",))},
            **options,
        )
        try:
            registry.validate(claims)
        except JoseError as exc:
            raise InvalidToken(f"claims ({exc.error}: {getattr(exc, 'claim', '')})") from None
        audience = claims.get("aud")
        several = isinstance(audience, list) and len(audience) > 1
        if several and claims.get("azp") != self.settings.oidc_client_id:
            raise InvalidToken("claims (azp)")
        issued = claims.get("iat")
        if not isinstance(issued, int | float) or issued < time.time() - MAX_TOKEN_AGE:
            raise InvalidToken("claims (iat too old)")

    async def id_token_claims(self, id_token: str, nonce: str) -> dict[str, Any]:
        """The claims of an ID token checked in full: signature, iss, aud, exp, iat, nonce."""
        token = await self._decode(id_token)
        claims = dict(token.claims)
        self._check_claims(
            claims,
            exp={"essential": True},
            nonce={"essential": True, "value": nonce},
        )
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise InvalidToken("claims (sub)")
        return claims

    async def logout_token_claims(self, logout_token: str) -> dict[str, Any]:
        """The claims of a back-channel logout token checked as OpenID Connect Back-Channel
        Logout 1.0 says: signature, iss, aud, iat, jti, the logout event, sub and/or sid, and
        no nonce."""
        token = await self._decode(logout_token)
        claims = dict(token.claims)
        self._check_claims(claims, require=(), jti={"essential": True})
        events = claims.get("events")
        if not isinstance(events, dict) or not isinstance(events.get(LOGOUT_EVENT), dict):
            raise InvalidToken("claims (events)")
        if "nonce" in claims:
            raise InvalidToken("claims (nonce)")
        if not isinstance(claims.get("sub"), str) and not isinstance(claims.get("sid"), str):
            raise InvalidToken("claims (neither sub nor sid)")
        return claims


def _padded(part: str) -> str:
    return part + "=" * (-len(part) % 4)
