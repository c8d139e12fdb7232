"""The ASGI entry point that Hypercorn serves: `hypercorn bff.asgi:app` (Quart + Socket.IO)."""

from __future__ import annotations

import sys

from config.filemodes import private_files

private_files()  # before the app's imports create var/metrics: owner-only files

from bff.app import create_app  # noqa: E402
from bff.live.patches import PatchVersionError, apply_loop  # noqa: E402
from bff.live.server import asgi_app  # noqa: E402
from config.logs import shown  # noqa: E402
from config.settings import SettingsError, load_settings  # noqa: E402

try:
    settings = load_settings()
    # Before Hypercorn's worker makes its event loop.
    apply_loop(settings.live_tuning, settings.live_patches_force)
    app = asgi_app(create_app(settings))
except (SettingsError, PatchVersionError) as exc:
    print(shown(exc), file=sys.stderr)  # before logging is configured: `shown` by hand
    raise SystemExit(2) from None
