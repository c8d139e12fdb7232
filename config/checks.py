"""What a setting's value must be beyond its type and bounds: each check raises ValueError with
the words `load_settings` puts after the variable's name, and may return the value in one
spelling. Settings (config/settings.py) names them in its fields' types.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, ValidationInfo

MFA_ROLES = ("admin", "doctor", "nurse", "assistant")  # the staff roles (bff/users/models.py)
# The kinds of content BFF_ALLOWED_TYPES may name (bff/files/content.py decides a file's kind
# from its bytes); a program is never allowed, whatever this says.
FILE_TYPES = ("pdf", "image", "text", "rtf", "office", "oldoffice", "dicom", "zip", "html", "other")
# The live layer's optional patches BFF_LIVE_TUNING may leave out by name (bff/live/patches/
# PATCHES; tests/live/test_patches.py checks that the two agree).
LIVE_PATCHES = (
    "no-compression",
    "free-connections",
    "writer-poll",
    "websocket-wire",
    "websocket-end",
    "environ-without-class",
    "accept-in-turns",
    "ready-in-turns",
    "rooms-by-connection",
)


def _database_url(value: str) -> str:
    if not value.startswith(("sqlite://", "postgres://", "postgresql://", "asyncpg://")):
        raise ValueError("must start with sqlite://, postgres:// or postgresql://")
    return value


def _redis_url(value: str) -> str:
    if value and not value.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError("must start with redis://, rediss:// or unix://")
    return value


def _storage_url(value: str) -> str:
    if not value.startswith(("file://", "s3://")):
        raise ValueError("must start with file:// or s3://")
    return value


def _networks(value: str) -> str:
    for part in filter(None, (p.strip() for p in value.split(","))):
        try:
            ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise ValueError(f"{part!r} is not an address or network") from None
    return value


def _key(value: str) -> str:
    if value and len(value.encode()) < 32:
        raise ValueError("must be at least 32 bytes long")
    return value


def _roles(value: str) -> str:
    roles = [role.strip().lower() for role in value.split(",") if role.strip()]
    unknown = [role for role in roles if role not in MFA_ROLES]
    if unknown:
        raise ValueError(f"unknown role {unknown[0]!r} (roles: {', '.join(MFA_ROLES)})")
    return ",".join(roles)


def _file_types(value: str) -> str:
    kinds = [kind.strip().lower() for kind in value.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in FILE_TYPES]
    if unknown:
        raise ValueError(f"unknown type {unknown[0]!r} (types: {', '.join(FILE_TYPES)})")
    return ",".join(dict.fromkeys(kinds))


def _issuer(value: str) -> str:
    value = value.strip().rstrip("/")
    if value and not value.startswith(("https://", "http://")):
        raise ValueError("must be the provider's https:// issuer URL")
    return value


def _role_map(value: str) -> str:
    for part in filter(None, (p.strip() for p in value.split(","))):
        role, sep, claim = part.partition("=")
        if not sep or not claim.strip():
            raise ValueError(f"{part!r} is not role=value")
        if role.strip().lower() not in MFA_ROLES:
            raise ValueError(f"unknown role {role.strip()!r} (roles: {', '.join(MFA_ROLES)})")
    return value


def _username(value: str) -> str:
    # naming.py holds the one spelling and rule of usernames (imported here, when a value is
    # checked: config/ is loaded before bff/).
    from bff.naming import username_error, username_spelling

    spelling = username_spelling(value)
    if error := username_error(spelling):
        raise ValueError(f"{value!a} cannot be a username. {error}")
    return spelling


def _age_recipient(value: str) -> str:
    from pyrage import x25519

    try:
        return str(x25519.Recipient.from_str(value.strip())) if value.strip() else ""
    except Exception:  # noqa: BLE001 - pyrage's RecipientError
        raise ValueError("must be an age X25519 recipient (age1...)") from None


def _ocr_languages(value: str) -> str:
    value = value.strip()
    if not re.fullmatch(r"[A-Za-z_]+(\+[A-Za-z_]+)*", value):
        raise ValueError("must be tesseract language codes joined by '+' (e.g. eng+deu)")
    return value


def _aes_key_hex(value: str) -> str:
    if value and not re.fullmatch(r"[0-9A-Fa-f]{32}", value):
        raise ValueError("must be 32 hexadecimal characters (an AES-128 key)")
    return value.upper()


def _clamd(value: str) -> str:
    if not value:
        return value
    if value.startswith("unix:"):
        if not value[5:].startswith("/"):
            raise ValueError("unix: needs an absolute socket path (unix:/run/clamav/clamd.ctl)")
        return value
    match = re.fullmatch(r"tcp://([^/:\s]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})", value)
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise ValueError("must be empty, unix:/path/to/clamd.sock or tcp://host:port")
    return value


def _live_tuning(value: str) -> str:
    value = value.strip().lower()
    if value in ("on", "off"):
        return value
    kind, _, rest = value.partition(":")
    names = [name.strip() for name in rest.split(",") if name.strip()]
    if kind != "off" or not names:
        raise ValueError("must be on, off, or off:NAME,... (the patches to leave out)")
    unknown = [name for name in names if name not in LIVE_PATCHES]
    if unknown:
        raise ValueError(f"no live patch {unknown[0]!r} (patches: {', '.join(LIVE_PATCHES)})")
    return "off:" + ",".join(names)


def _offload(value: str, info: ValidationInfo) -> str:
    needs = {"nginx": "file://", "s3": "s3://"}.get(value)
    if needs and not str(info.data.get("storage_url", "")).startswith(needs):
        raise ValueError(f"{value} needs a {needs} BFF_STORAGE_URL")
    return value


DatabaseUrl = Annotated[str, AfterValidator(_database_url)]
RedisUrl = Annotated[str, AfterValidator(_redis_url)]
StorageUrl = Annotated[str, AfterValidator(_storage_url)]
Networks = Annotated[str, AfterValidator(_networks)]  # addresses or networks, comma-separated
Key = Annotated[str, AfterValidator(_key)]  # empty, or at least 32 bytes
Roles = Annotated[str, AfterValidator(_roles)]  # staff roles, comma-separated, lower case
FileTypes = Annotated[str, AfterValidator(_file_types)]  # FILE_TYPES, comma-separated
Issuer = Annotated[str, AfterValidator(_issuer)]  # an OpenID Provider's URL, no trailing /
RoleMap = Annotated[str, AfterValidator(_role_map)]  # role=claim value, comma-separated
Username = Annotated[str, AfterValidator(_username)]  # naming.py's rule, in its one spelling
AgeRecipient = Annotated[str, AfterValidator(_age_recipient)]
OcrLanguages = Annotated[str, AfterValidator(_ocr_languages)]
ClamdAddress = Annotated[str, AfterValidator(_clamd)]  # empty, unix:/path or tcp://host:port
LiveTuning = Annotated[str, AfterValidator(_live_tuning)]  # on, off, or off:NAME,...
AesKeyHex = Annotated[str, AfterValidator(_aes_key_hex)]  # empty, or 32 hex digits (upper case)
# Who sends a viewed file's bytes; nginx needs local storage, s3 an S3 one (checked after it).
ViewOffload = Annotated[Literal["none", "nginx", "s3"], AfterValidator(_offload)]
