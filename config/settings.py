"""Typed settings, read once from BFF_* environment variables and validated at start.

Every setting has a default that lets a fresh checkout run with no services at all:
SQLite in var/, files on local disk in var/, in-process fallbacks instead of Redis. What a value
must be beyond its type and bounds is in config/checks.py; secrets generated when none is set,
in config/generated.py.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from config.checks import (
    AesKeyHex,
    AgeRecipient,
    ClamdAddress,
    DatabaseUrl,
    FileTypes,
    Issuer,
    Key,
    LiveTuning,
    Networks,
    OcrLanguages,
    RedisUrl,
    RoleMap,
    Roles,
    StorageUrl,
    Username,
    ViewOffload,
)
from config.generated import age_recipient_of, persistent_secret

VAR_DIR = Path("var")
# A bind address on this machine only: the default BFF_PUBLIC_URL names it localhost.
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class SettingsError(Exception):
    """A setting is invalid; the message is one line naming the variable."""


class Settings(BaseSettings):
    """All runtime settings of the BFF."""

    model_config = SettingsConfigDict(env_prefix="BFF_", extra="ignore", frozen=True)

    database_url: DatabaseUrl = "sqlite://var/bff.sqlite3"
    # How long a read (GET, HEAD) waits for the database to take connections again when its
    # connection fails (a restart, a failover) before answering 503 (0: answer at once).
    database_retry_seconds: Annotated[float, Field(ge=0, le=30)] = 2
    storage_url: StorageUrl = "file://var/storage"
    redis_url: RedisUrl = ""
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 8000
    public_url: str = ""
    session_hours: Annotated[float, Field(gt=0, le=24 * 30)] = 8
    # How long a process may reuse a session it read from the database (0: read on every
    # request). Sign-outs and account changes end cached sessions at once in this process and,
    # through Redis, in the others; this bounds only what neither reaches (the command line).
    session_cache_seconds: Annotated[float, Field(ge=0, le=60)] = 10
    # Step-up (bff/auth/stepup.py): a sensitive change (a factor, recovery codes, a password,
    # an admin's takeover or destructive action) needs the session to have proved its password
    # or a factor within this many minutes; 0: a confirmation sent with every such change.
    reauth_minutes: Annotated[float, Field(ge=0, le=24 * 60)] = 15
    # How often each process re-checks the sessions of its live connections and session cache
    # (one query): a session ended where no running process announces it ends within this.
    live_session_check_seconds: Annotated[float, Field(gt=0, le=60)] = 30
    # A live connection open at Engine.IO and not connected at Socket.IO (no session given, or
    # refused) is closed after this long; each process keeps at most this many of them per
    # client address, refusing more (bff/live/unconnected.py's `Unconnected`): a fifth of the
    # 1,000 silent websockets the third review held from one address, while a site's reconnect
    # storm from one address gets through, the few refused retrying (docs/capacity.md).
    live_connect_seconds: Annotated[float, Field(gt=0, le=60)] = 10
    live_unconnected_per_address: Annotated[int, Field(ge=1, le=100_000)] = 200
    # The live layer's patches of other libraries' code (bff/live/patches/): "on", "off" (the
    # stock python-engineio, python-socketio, Hypercorn and asyncio loop: a way back after an
    # upgrade, at the cost docs/capacity.md measures), or "off:NAME,..." (all but those).
    live_tuning: LiveTuning = "on"
    # Apply them even where an installed library differs from the version a patch was written
    # for (without: such an optional patch is left out, and a non-optional one stops the start).
    live_patches_force: bool = False
    max_upload_mb: Annotated[int, Field(ge=1, le=10_000)] = 50
    # Conversions (profile images, RTF to text) run in worker processes (bff/workers.py): at
    # most this many at once, this many more waiting (beyond: 503), each killed after this long,
    # each process's address space limited to this much (the viewer's renderings run there too).
    conversion_workers: Annotated[int, Field(ge=1, le=16)] = 2
    conversion_queue: Annotated[int, Field(ge=0, le=1000)] = 8
    conversion_seconds: Annotated[float, Field(gt=0, le=600)] = 60
    conversion_memory_mb: Annotated[int, Field(ge=256, le=65_536)] = 1024
    # Thumbnails and the viewer's pages (bff/files/thumbnails.py, bff/files/viewer.py), rendered
    # in the same worker pool: each render killed after this long; files larger than this get
    # no thumbnail and no pages; rendered pages kept in each process's memory up to this size;
    # how long a viewer session's links (its pages) and a listing's thumbnail links work.
    preview_seconds: Annotated[float, Field(gt=0, le=600)] = 20
    preview_max_mb: Annotated[int, Field(ge=1, le=10_000)] = 50
    preview_cache_mb: Annotated[int, Field(ge=0, le=4096)] = 64
    preview_link_seconds: Annotated[int, Field(ge=60, le=3600)] = 600
    # The viewer's reduced copy of an image too large for the browser is streamed by libvips's
    # vipsthumbnail (Debian's libvips-tools: `make vips`), in the same worker pool and limits;
    # a name looked up on PATH or a path. Empty or not installed: Pillow reduces images up to
    # 100 megapixels, and a larger one is shown as a card whose original is a download.
    vipsthumbnail: str = "vipsthumbnail"
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
    view_offload: ViewOffload = "none"
    view_offload_seconds: Annotated[int, Field(ge=10, le=3600)] = 120
    secret_key: Key = ""
    # Second factors (bff/mfa/): roles whose members must have one (comma-separated; a member
    # without one signs in to a session that can only enrol), and the key sealing TOTP seeds
    # (default: derived from BFF_SECRET_KEY). Changing either key makes enrolled seeds unusable.
    mfa_required_roles: Roles = ""
    mfa_key: Key = ""
    # OpenID Connect single sign-on (bff/oidc/, docs/single-sign-on.md); off while the issuer
    # is empty. The provider is found by discovery (ISSUER/.well-known/openid-configuration).
    # The client authenticates with its secret, or with a private key (private_key_jwt: the PEM
    # file's path). An account is linked to a provider's subject by an admin (the subject, or a
    # one-time "link at next sign-in"), or by its owner's password (and factor) once; never by a
    # claim alone. PROVISION "on": the first sign-in of a subject whose username claim
    # (USERNAME_CLAIM, naming.py's rule) names no account creates one. The role
    # comes from ROLE_CLAIM through ROLE_MAP ("admin=Portal-Admins,doctor=Doctors,..."; no
    # mapped value: no access). An ID token whose amr has one of MFA_AMR, or whose acr is one of
    # MFA_ACR, counts as a second factor. LOCAL_PASSWORDS: who may still sign in with a
    # password ("all", "admins": a break-glass admin, "none"). REQUESTS_PER_MINUTE: requests to
    # the public endpoints (start, callback, complete, link, back-channel logout) per address.
    oidc_issuer: Issuer = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = ""
    oidc_private_key_file: str = ""
    oidc_scopes: str = "openid profile email"
    oidc_display_name: str = "single sign-on"
    oidc_provision: Literal["off", "on"] = "off"
    oidc_username_claim: str = "preferred_username"
    oidc_name_claim: str = "name"
    oidc_role_claim: str = "groups"
    oidc_role_map: RoleMap = ""
    oidc_mfa_amr: str = "mfa,otp,hwk,swk,sc,fido"
    oidc_mfa_acr: str = ""
    oidc_local_passwords: Literal["all", "admins", "none"] = "all"
    oidc_timeout_seconds: Annotated[float, Field(gt=0, le=60)] = 10
    oidc_requests_per_minute: Annotated[int, Field(ge=1)] = 300
    admin_username: Username = "admin"
    admin_password: str = ""
    # New passwords (bff/auth/password_rule.py): at least this many characters (after NFKC);
    # no composition rules, common and guessable passwords refused.
    password_min_length: Annotated[int, Field(ge=8, le=256)] = 12
    var_dir: Path = VAR_DIR
    # The built web app served (bff/web.py); empty: the checkout's frontend/dist.
    web_dir: Path | None = None
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
    sdm_meta_read_key: AesKeyHex = ""
    # With an https BFF_PUBLIC_URL: Strict-Transport-Security on every answer, this many
    # seconds (0: not sent), and whether it covers the host's subdomains too.
    hsts_seconds: Annotated[int, Field(ge=0, le=2 * 365 * 24 * 3600)] = 365 * 24 * 3600
    hsts_include_subdomains: bool = True
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
    metrics_allow: Networks = "127.0.0.1"
    metrics_token: str = ""
    # Logs: "text" (one readable line, for a developer) or "json" (one object per line).
    log_format: Literal["text", "json"] = "text"
    # How the patient finder reads a date typed in numbers (30/01/1955 or 01/30/1955): the
    # deployment's locale (bff/patients/dates.py). A month in words is read in either.
    date_order: Literal["day-month", "month-day"] = "day-month"
    # Versions and the trash (bff/files/versions.py): days an admin-deleted file stays in its
    # folder's trash before it is purged; days and number of old versions kept per file
    # (0: keep forever / no limit). Purged by the running server every sweep interval.
    trash_days: Annotated[int, Field(ge=1, le=36500)] = 30
    version_days: Annotated[int, Field(ge=0, le=36500)] = 0
    max_versions: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    # The audit log's key (bff/audit/integrity.py): every entry's hash and every checkpoint is
    # an HMAC with it, so nobody without it can rewrite the log unnoticed. Never in the database.
    audit_key: Key = ""
    # How often the running server checkpoints the audit log to the file storage when it has
    # new entries (one instance at a time), verifying the entries since the previous one.
    audit_checkpoint_minutes: Annotated[float, Field(gt=0, le=24 * 60)] = 5
    # Backups (bff/backup/crypto.py): every part and object of a snapshot is encrypted with age
    # to this X25519 recipient (the public "age1..." key; empty: the identity generated into
    # var/backup_identity), and its manifest authenticated with HMAC-SHA256 under this key
    # (empty: one generated into var/backup_key). A restore needs the identity: this file
    # (or `restore --identity FILE`), else var/backup_identity.
    backup_recipient: AgeRecipient = ""
    backup_identity_file: str = ""
    backup_key: Key = ""
    # Intake cover sheets (bff/intake/sheets.py): each sheet's QR code carries its folder with an
    # HMAC under this key, so a sheet cannot be made for another folder (empty: one generated
    # into var/intake_sheet_key). Every instance must have the same key.
    intake_sheet_key: Key = ""
    # Background jobs per file version (bff/jobs/: text extraction for search, previews): each
    # serving process runs at most this many at once in worker processes of their own (0: this
    # process runs none; others, or `search reindex`, do), each killed after this long and
    # limited to this much memory; files over BFF_JOB_MAX_MB are not read. A failed job is tried
    # again after BFF_JOB_RETRY_SECONDS, doubling each time, and marked failed for good after
    # BFF_JOB_ATTEMPTS attempts. Idle processes look for due jobs every BFF_JOB_POLL_SECONDS
    # (the process that records a job starts it at once).
    job_workers: Annotated[int, Field(ge=0, le=16)] = 1
    job_seconds: Annotated[float, Field(gt=0, le=3600)] = 300
    job_memory_mb: Annotated[int, Field(ge=256, le=65_536)] = 2048
    job_max_mb: Annotated[int, Field(ge=1, le=10_000)] = 200
    job_attempts: Annotated[int, Field(ge=1, le=100)] = 3
    job_retry_seconds: Annotated[float, Field(gt=0, le=24 * 3600)] = 60
    job_poll_seconds: Annotated[float, Field(gt=0, le=3600)] = 10
    # Text for search (bff/search/extract.py): the OCR languages of Debian's tesseract-ocr, joined
    # by '+' (each needs its package: tesseract-ocr-eng, tesseract-ocr-deu...), and at most this
    # many pages of one PDF read by OCR (the pages of its text layer are always read).
    ocr_languages: OcrLanguages = "eng"
    ocr_max_pages: Annotated[int, Field(ge=0, le=10_000)] = 50
    # Malware scanning (bff/scan/): clamd's address (`unix:/run/clamav/clamd.ctl` or
    # `tcp://host:port`; empty: no scanner, files stored "unscanned"), the time its answer may
    # take after the last chunk (and to connect), the largest file scanned (at most clamd's
    # StreamMaxLength), and what happens to a file while the scanner is unavailable or the file
    # is larger: refused (503), or stored "held" until a scan lets it out.
    clamd: ClamdAddress = ""
    scan_seconds: Annotated[float, Field(gt=0, le=600)] = 30.0
    scan_max_mb: Annotated[int, Field(ge=1, le=4000)] = 100
    scan_unavailable: Literal["refuse", "hold"] = "refuse"
    # How many connections to clamd one process opens at once (each takes one of clamd's
    # threads, MaxThreads, while a content is streamed and scanned); more scans wait their turn.
    scan_connections: Annotated[int, Field(ge=1, le=64)] = 4
    # The periodic rescan (bff/scan/rescan.py): files whose content was stored in the last
    # rescan_days (0: none) are scanned again once their last scan is rescan_hours old, as
    # signatures change every day.
    rescan_days: Annotated[int, Field(ge=0, le=3650)] = 7
    rescan_hours: Annotated[float, Field(ge=1, le=24 * 365)] = 24.0
    # Content checks (bff/files/content.py): the kinds of content accepted, decided from the
    # bytes (config/checks.py FILE_TYPES; a program never); a PDF pdfium cannot open refused or
    # kept as not displayable; a PDF with active content (JavaScript, launch actions, embedded
    # files) flagged in the listing and the viewer, or refused.
    allowed_types: FileTypes = "pdf,image,text,rtf,office,dicom"
    damaged_pdf: Literal["refuse", "keep"] = "refuse"
    pdf_active_content: Literal["flag", "refuse"] = "flag"
    # Search (bff/search/service.py): each search's time on the database, waiting for a turn
    # included (past it: 503, the statement stopped), and each user's searches per minute
    # (past them: 429 with Retry-After).
    search_seconds: Annotated[float, Field(gt=0, le=60)] = 2.0
    searches_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 30
    # The intake's ways in (bff/intake/scanfolder.py, mailbox.py; each off while unset): the
    # scan folder, a file taken once unchanged this long; the IMAP mailbox, polled this often,
    # over IMAPS (port 993) or STARTTLS unless TLS is not required; its processed folder.
    intake_folder: Path | None = None
    intake_settle_seconds: Annotated[float, Field(ge=0.1, le=600)] = 2.0
    intake_imap_host: str = ""
    intake_imap_port: Annotated[int, Field(ge=1, le=65535)] = 993
    intake_imap_user: str = ""
    intake_imap_password: str = ""
    intake_imap_folder: str = "INBOX"
    intake_imap_processed_folder: str = "Processed"
    intake_imap_tls_required: bool = True
    intake_imap_poll_seconds: Annotated[float, Field(ge=1, le=3600)] = 60.0
    # Tests only: with BFF_TESTING on, the process exits at once when an upload reaches the
    # fault point BFF_TEST_CRASH_AT names (bff/files/staging.py CRASH_POINTS).
    testing: bool = False
    test_crash_at: str = ""

    @field_validator("web_dir", mode="before")
    @classmethod
    def _empty_web_dir_is_none(cls, value: object) -> object:
        # BFF_WEB_DIR= (empty) means frontend/dist, as documented: pydantic would read '' as
        # Path('.'), the working directory, and serve the checkout (keys, database) to anyone.
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _check_web_dir(self) -> Settings:
        if self.web_dir is not None:
            web = self.web_dir
            if not web.is_absolute():
                raise ValueError("BFF_WEB_DIR must be an absolute path to a built web app")
            var = self.var_dir.resolve()
            built = web.resolve()
            if var == built or var.is_relative_to(built) or built.is_relative_to(var):
                raise ValueError(
                    "BFF_WEB_DIR must be a folder of its own: it may not hold or be inside "
                    "BFF_VAR_DIR (keys, database, storage would be served)"
                )
        return self

    @model_validator(mode="after")
    def _check_oidc_client(self) -> Settings:
        if self.oidc_issuer and not self.oidc_client_id:
            raise ValueError("BFF_OIDC_CLIENT_ID is needed with BFF_OIDC_ISSUER")
        if self.oidc_issuer and not (self.oidc_client_secret or self.oidc_private_key_file):
            raise ValueError("BFF_OIDC_CLIENT_SECRET or BFF_OIDC_PRIVATE_KEY_FILE is needed")
        return self

    @model_validator(mode="after")
    def _fill_public_url(self) -> Settings:
        if not self.public_url:
            # A loopback bind is announced as localhost: WebAuthn refuses an IP address as the
            # relying party, so passkeys work only at http://localhost:PORT.
            host = "localhost" if self.host in LOOPBACK_HOSTS else self.host
            object.__setattr__(self, "public_url", f"http://{host}:{self.port}")
        object.__setattr__(self, "public_url", self.public_url.rstrip("/"))
        return self

    @property
    def https(self) -> bool:
        """Whether people reach the portal over HTTPS (BFF_PUBLIC_URL)."""
        return self.public_url.startswith("https://")

    @property
    def strict_transport_security(self) -> str | None:
        """The Strict-Transport-Security header's value (None: not sent, over http)."""
        if not self.https or self.hsts_seconds == 0:
            return None
        subdomains = "; includeSubDomains" if self.hsts_include_subdomains else ""
        return f"max-age={self.hsts_seconds}{subdomains}"

    @property
    def metrics_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        """BFF_METRICS_ALLOW as networks."""
        parts = (p.strip() for p in self.metrics_allow.split(","))
        return [ipaddress.ip_network(part, strict=False) for part in parts if part]

    @property
    def oidc_enabled(self) -> bool:
        """Whether single sign-on through an OpenID Provider is configured."""
        return bool(self.oidc_issuer)

    @property
    def oidc_roles(self) -> list[tuple[str, str]]:
        """BFF_OIDC_ROLE_MAP as (role, claim value) pairs, in the order given."""
        pairs = []
        for part in filter(None, (p.strip() for p in self.oidc_role_map.split(","))):
            role, _, claim = part.partition("=")
            pairs.append((role.strip().lower(), claim.strip()))
        return pairs

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
        return persistent_secret(self.var_dir / "secret_key")

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
        return persistent_secret(self.var_dir / "token_key")

    def audit_signing_key(self) -> bytes:
        """The audit log's key: BFF_AUDIT_KEY, else one kept in var/audit_key."""
        return (self.audit_key or persistent_secret(self.var_dir / "audit_key")).encode()

    def sdm_meta_read_key_bytes(self) -> bytes:
        """The SUN meta-read key: BFF_SDM_META_READ_KEY, else one kept in
        var/sdm_meta_read_key."""
        if self.sdm_meta_read_key:
            return bytes.fromhex(self.sdm_meta_read_key)
        return bytes.fromhex(persistent_secret(self.var_dir / "sdm_meta_read_key", hex_bytes=16))

    def backup_mac_key(self) -> bytes:
        """The key authenticating snapshot manifests: BFF_BACKUP_KEY, else one kept in
        var/backup_key."""
        return (self.backup_key or persistent_secret(self.var_dir / "backup_key")).encode()

    def intake_sheet_mac_key(self) -> bytes:
        """The key of intake cover sheets' codes: BFF_INTAKE_SHEET_KEY, else one kept in
        var/intake_sheet_key."""
        return (
            self.intake_sheet_key or persistent_secret(self.var_dir / "intake_sheet_key")
        ).encode()

    def backup_identity_path(self) -> Path:
        """Where a restore reads the age identity: BFF_BACKUP_IDENTITY_FILE, else
        var/backup_identity."""
        return Path(self.backup_identity_file or self.var_dir / "backup_identity").expanduser()

    def backup_recipient_text(self) -> str:
        """The age recipient snapshots are encrypted to: BFF_BACKUP_RECIPIENT, else that of the
        identity kept in var/backup_identity (generated on first use)."""
        if self.backup_recipient:
            return self.backup_recipient
        return age_recipient_of(self.var_dir / "backup_identity")


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
