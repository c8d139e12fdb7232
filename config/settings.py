"""Typed settings, read once from BFF_* environment variables and validated at start.

Every setting has a default that lets a fresh checkout run with no services at all:
SQLite in var/, files on local disk in var/, in-process fallbacks instead of Redis.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import re
import secrets
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

VAR_DIR = Path("var")
MFA_ROLES = ("admin", "doctor", "nurse", "assistant")  # the staff roles (bff/users/models.py)


class SettingsError(Exception):
    """A setting is invalid; the message is one line naming the variable."""


class Settings(BaseSettings):
    """All runtime settings of the BFF."""

    model_config = SettingsConfigDict(env_prefix="BFF_", extra="ignore", frozen=True)

    database_url: str = "sqlite://var/bff.sqlite3"
    storage_url: str = "file://var/storage"
    redis_url: str = ""
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 8000
    public_url: str = ""
    session_hours: Annotated[float, Field(gt=0, le=24 * 30)] = 8
    # How long a process may reuse a session it read from the database (0: read on every
    # request). Sign-outs and account changes end cached sessions at once in this process and,
    # through Redis, in the others; this bounds only what neither reaches (the command line).
    session_cache_seconds: Annotated[float, Field(ge=0, le=60)] = 10
    # How often each process re-checks the sessions of its live connections and session cache
    # (one query): a session ended where no running process announces it ends within this.
    live_session_check_seconds: Annotated[float, Field(gt=0, le=60)] = 30
    max_upload_mb: Annotated[int, Field(ge=1, le=10_000)] = 50
    # Conversions (profile images, RTF to text) run in worker processes (bff/workers.py): at
    # most this many at once, this many more waiting (beyond: 503), each killed after this long.
    conversion_workers: Annotated[int, Field(ge=1, le=16)] = 2
    conversion_queue: Annotated[int, Field(ge=0, le=1000)] = 8
    conversion_seconds: Annotated[float, Field(gt=0, le=600)] = 60
    # Largest RTF converted to text (about 0.5 s of CPU per MB); larger RTFs are refused (413).
    rtf_max_mb: Annotated[int, Field(ge=1, le=10_000)] = 20
    view_link_seconds: Annotated[int, Field(ge=10, le=3600)] = 300
    # Whether file views also accept the session token itself as `?auth=` (an old client's
    # way; it puts an 8-hour credential into browser history and proxy logs). Off by default.
    allow_token_in_url: bool = False
    # Who sends a file view's bytes once the BFF has authorised and audited it
    # (bff/files/offload.py): "none", the BFF streams them; "nginx", nginx's internal location
    # sends them from the storage directory (X-Accel-Redirect; local storage behind the nginx
    # template only); "s3", the browser is redirected to a presigned URL valid this long.
    view_offload: Literal["none", "nginx", "s3"] = "none"
    view_offload_seconds: Annotated[int, Field(ge=10, le=3600)] = 120
    secret_key: str = ""
    # Second factors (bff/mfa/): roles whose members must have one (comma-separated; a member
    # without one signs in to a session that can only enrol), and the key sealing TOTP seeds
    # (default: derived from BFF_SECRET_KEY). Changing either key makes enrolled seeds unusable.
    mfa_required_roles: str = ""
    mfa_key: str = ""
    admin_username: str = "admin"
    admin_password: str = ""
    var_dir: Path = VAR_DIR
    # Brute-force protection (bff/auth/throttle.py): sign-in attempts allowed per window per
    # (username, address) pair, per address, and per username (beyond which they slow down).
    login_max_failures: Annotated[int, Field(ge=1)] = 5
    login_max_failures_per_address: Annotated[int, Field(ge=1)] = 30
    login_max_failures_per_username: Annotated[int, Field(ge=1)] = 100
    login_window_seconds: Annotated[int, Field(ge=1)] = 900
    # SmartTokens: the key signing verification links, the emergency grant's lifetime, and
    # failed verifications allowed per window, per client address and per token.
    token_key: str = ""
    # NTAG 424 DNA SUN taps: the deployment's SDM meta-read key (32 hex), which decrypts the
    # UID and tap counter every tag of this deployment writes into its URL.
    sdm_meta_read_key: str = ""
    # Behind a reverse proxy: how many proxy hops to trust for X-Forwarded-For/-Proto (0: none).
    trusted_proxy_hops: Annotated[int, Field(ge=0, le=5)] = 0
    emergency_minutes: Annotated[int, Field(ge=1, le=24 * 60)] = 15
    verify_max_failures_per_address: Annotated[int, Field(ge=1)] = 20
    verify_max_failures_per_token: Annotated[int, Field(ge=1)] = 10
    # Uploads are staged and become files only when indexed (bff/files/staging.py). What an
    # upload silent this long left without committing (a crash) is removed, checked on start
    # and every sweep interval; a live upload refreshes its record every quarter of this.
    upload_staging_grace_seconds: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] = 600
    upload_sweep_seconds: Annotated[float, Field(gt=0, le=24 * 3600)] = 300
    # GET /metrics (Prometheus): answered only to these addresses or networks (comma-separated,
    # e.g. "127.0.0.1,10.0.0.0/8"; empty: none) or with `Authorization: Bearer <token>`
    # (empty: no token). A request that came through a proxy the BFF does not trust
    # (an X-Forwarded-For it does not read) is never allowed by its address.
    metrics_allow: str = "127.0.0.1"
    metrics_token: str = ""
    # Logs: "text" (one readable line, for a developer) or "json" (one object per line).
    log_format: Literal["text", "json"] = "text"
    # Versions and the trash (bff/files/versions.py): days an admin-deleted file stays in its
    # folder's trash before it is purged; days and number of old versions kept per file
    # (0: keep forever / no limit). Purged by the running server every sweep interval.
    trash_days: Annotated[int, Field(ge=1, le=36500)] = 30
    version_days: Annotated[int, Field(ge=0, le=36500)] = 0
    max_versions: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    # The audit log's key (bff/audit/integrity.py): every entry's hash and every checkpoint is
    # an HMAC with it, so nobody without it can rewrite the log unnoticed. Never in the database.
    audit_key: str = ""
    # How often the running server checkpoints the audit log to the file storage when it has
    # new entries (one instance at a time), verifying the entries since the previous one.
    audit_checkpoint_minutes: Annotated[float, Field(gt=0, le=24 * 60)] = 5
    # Tests only: with BFF_TESTING on, the process exits at once when an upload reaches the
    # fault point BFF_TEST_CRASH_AT names (bff/files/staging.py CRASH_POINTS).
    testing: bool = False
    test_crash_at: str = ""

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        if not value.startswith(("sqlite://", "postgres://", "postgresql://", "asyncpg://")):
            raise ValueError("must start with sqlite://, postgres:// or postgresql://")
        return value

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, value: str) -> str:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("storage_url")
    @classmethod
    def _check_storage_url(cls, value: str) -> str:
        if not value.startswith(("file://", "s3://")):
            raise ValueError("must start with file:// or s3://")
        return value

    @field_validator("metrics_allow")
    @classmethod
    def _check_metrics_allow(cls, value: str) -> str:
        for part in filter(None, (p.strip() for p in value.split(","))):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{part!r} is not an address or network") from None
        return value

    @property
    def metrics_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        """BFF_METRICS_ALLOW as networks."""
        parts = (p.strip() for p in self.metrics_allow.split(","))
        return [ipaddress.ip_network(part, strict=False) for part in parts if part]

    @field_validator("secret_key")
    @classmethod
    def _check_secret_key(cls, value: str) -> str:
        if value and len(value.encode()) < 32:
            raise ValueError("must be at least 32 bytes long")
        return value

    @field_validator("mfa_required_roles")
    @classmethod
    def _check_mfa_required_roles(cls, value: str) -> str:
        roles = [role.strip().lower() for role in value.split(",") if role.strip()]
        unknown = [role for role in roles if role not in MFA_ROLES]
        if unknown:
            raise ValueError(f"unknown role {unknown[0]!r} (roles: {', '.join(MFA_ROLES)})")
        return ",".join(roles)

    @field_validator("mfa_key", "audit_key")
    @classmethod
    def _check_key_length(cls, value: str) -> str:
        if value and len(value.encode()) < 32:
            raise ValueError("must be at least 32 bytes long")
        return value

    @field_validator("sdm_meta_read_key")
    @classmethod
    def _check_sdm_meta_read_key(cls, value: str) -> str:
        if value and not re.fullmatch(r"[0-9A-Fa-f]{32}", value):
            raise ValueError("must be 32 hexadecimal characters (an AES-128 key)")
        return value.upper()

    @field_validator("view_offload")
    @classmethod
    def _check_view_offload(cls, value: str, info: ValidationInfo) -> str:
        needs = {"nginx": "file://", "s3": "s3://"}.get(value)
        if needs and not str(info.data.get("storage_url", "")).startswith(needs):
            raise ValueError(f"{value} needs a {needs} BFF_STORAGE_URL")
        return value

    @model_validator(mode="after")
    def _fill_public_url(self) -> Settings:
        if not self.public_url:
            object.__setattr__(self, "public_url", f"http://{self.host}:{self.port}")
        object.__setattr__(self, "public_url", self.public_url.rstrip("/"))
        return self

    @property
    def max_upload_bytes(self) -> int:
        """The upload size limit in bytes."""
        return self.max_upload_mb * 1024 * 1024

    @property
    def rtf_max_bytes(self) -> int:
        """The RTF conversion size limit in bytes."""
        return self.rtf_max_mb * 1024 * 1024

    @property
    def is_sqlite(self) -> bool:
        """Whether the database is the embedded SQLite file."""
        return self.database_url.startswith("sqlite://")

    def signing_key(self) -> str:
        """The session-signing secret: BFF_SECRET_KEY, else one kept in var/secret_key."""
        if self.secret_key:
            return self.secret_key
        return _persistent_secret(self.var_dir / "secret_key")

    @property
    def mfa_roles(self) -> frozenset[str]:
        """The roles whose members must have a second factor."""
        return frozenset(role for role in self.mfa_required_roles.split(",") if role)

    def mfa_sealing_secret(self) -> str:
        """The secret TOTP seeds are sealed under: BFF_MFA_KEY, else BFF_SECRET_KEY's."""
        return self.mfa_key or self.signing_key()

    def token_signing_key(self) -> str:
        """The SmartToken link secret: BFF_TOKEN_KEY, else one kept in var/token_key."""
        if self.token_key:
            return self.token_key
        return _persistent_secret(self.var_dir / "token_key")

    def audit_signing_key(self) -> bytes:
        """The audit log's key: BFF_AUDIT_KEY, else one kept in var/audit_key."""
        return (self.audit_key or _persistent_secret(self.var_dir / "audit_key")).encode()

    def sdm_meta_read_key_bytes(self) -> bytes:
        """The SUN meta-read key: BFF_SDM_META_READ_KEY, else one kept in
        var/sdm_meta_read_key."""
        if self.sdm_meta_read_key:
            return bytes.fromhex(self.sdm_meta_read_key)
        return bytes.fromhex(_persistent_secret(self.var_dir / "sdm_meta_read_key", hex_bytes=16))


@functools.lru_cache(maxsize=64)
def _persistent_secret(path: Path, hex_bytes: int = 0) -> str:
    """Read a generated secret from path, creating it (mode 0600) on first use: hex_bytes
    random bytes as hex when given, else 48 as URL-safe text.

    Remembered per path: every request checks a token signature with it."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(hex_bytes).upper() if hex_bytes else secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(value + "\n")
    return value


def load_settings(**overrides: object) -> Settings:
    """Load settings from the environment; raise SettingsError with one clear line."""
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "BFF_" + str(first["loc"][0]).upper() if first["loc"] else "BFF settings"
        raise SettingsError(f"Invalid setting {name}: {first['msg']}") from None
    if settings.is_sqlite:
        db_path = settings.database_url.removeprefix("sqlite://")
        if db_path != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    return settings
