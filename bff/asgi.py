"""The ASGI entry point that Hypercorn serves: `hypercorn bff.asgi:app` (Quart + Socket.IO)."""

from __future__ import annotations

import sys

from bff.app import create_app
from bff.live.server import asgi_app
from config.settings import SettingsError

try:
    app = asgi_app(create_app())
except SettingsError as exc:
    print(exc, file=sys.stderr)
    raise SystemExit(2) from None
