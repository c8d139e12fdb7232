"""Print the BFF's OpenAPI document (the same as GET /openapi.json) without serving it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BFF_DATABASE_URL", f"sqlite://{tmp}/openapi.sqlite3")
        os.environ.setdefault("BFF_STORAGE_URL", f"file://{tmp}/storage")
        os.environ.setdefault("BFF_SECRET_KEY", "x" * 48)
        os.environ.setdefault("BFF_VAR_DIR", f"{tmp}/var")
        from bff.app import create_app

        app = create_app(bootstrap_admin=False)
        response = await app.test_client().get("/openapi.json")
        if response.status_code != 200:
            sys.exit(f"GET /openapi.json answered {response.status_code}")
        json.dump(await response.get_json(), sys.stdout, indent=1, sort_keys=True)


asyncio.run(main())
