"""A bare Quart app with one JSON endpoint: the framework's ceiling for bench/load_bench.py.

Served the way `python -m bff serve` serves the BFF: in-process Hypercorn with the production
settings of config/hypercorn.toml (one worker, asyncio, the same access log), on 127.0.0.1.

Usage: .venv/bin/python bench/bare_app.py --port 8123
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart

REPO = Path(__file__).resolve().parents[1]


def create_bare_app() -> Quart:
    """One route returning a small JSON object, about the size of GET /api/auth/me."""
    app = Quart(__name__)

    @app.get("/json")
    async def json_endpoint() -> dict[str, object]:
        return {"id": 1, "username": "bench", "name": "Bare Quart", "role": "nurse"}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    config = Config.from_toml(REPO / "config" / "hypercorn.toml")
    config.bind = [f"127.0.0.1:{args.port}"]
    asyncio.run(serve(create_bare_app(), config))


if __name__ == "__main__":
    main()
