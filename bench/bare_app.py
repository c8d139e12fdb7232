"""A bare Quart app with one JSON endpoint: the framework's ceiling for bench/load_bench.py.

Served the way `python -m bff serve` serves the BFF: in-process Hypercorn with the production
settings of config/hypercorn.toml (one worker, asyncio, the same access log), on 127.0.0.1.

Usage: .venv/bin/python bench/bare_app.py --port 8123 [--body document.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart

REPO = Path(__file__).resolve().parents[1]


SMALL = {"id": 1, "username": "bench", "name": "Bare Quart", "role": "nurse"}


def create_bare_app(document: dict[str, Any] | None = None) -> Quart:
    """One route returning a JSON document (serialised on every request, as the BFF does):
    by default a small object; load_bench passes the body one of our endpoints returned, so
    both serialise the same document."""
    app = Quart(__name__)
    body = document if document is not None else SMALL

    @app.get("/json")
    async def json_endpoint() -> dict[str, Any]:
        return body

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--body", type=Path, help="a JSON file to serve instead of a small one")
    args = parser.parse_args()
    config = Config.from_toml(REPO / "config" / "hypercorn.toml")
    config.bind = [f"127.0.0.1:{args.port}"]
    document = json.loads(args.body.read_text()) if args.body else None
    asyncio.run(serve(create_bare_app(document), config))


if __name__ == "__main__":
    main()
