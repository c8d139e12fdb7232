"""The real app (`bff.asgi:app`, what the Procfile serves) with one change for
tests/search/test_search_server.py: a search with the word `slowpoke` first runs, through its
own reading (its connection, its budget, its way of being stopped), a statement that takes
minutes unless it is stopped (SQLite a recursive count to 10^11, PostgreSQL `pg_sleep(600)`),
so a test can cut off a search while it runs in the database, deterministically. Every other
search is the product's own.

    hypercorn --config config/hypercorn.toml tests.search.slow_search_asgi:app
"""

from __future__ import annotations

from typing import Any

from bff.asgi import app
from bff.db import dialect
from bff.search import repository
from bff.search.query import Query

__all__ = ["app"]

MARKER = "slowpoke"
SLOW = {
    "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
    "WHERE x < 100000000000) SELECT max(x) AS x FROM c",
    "postgres": "SELECT pg_sleep(600) AS x",
}
_search = repository.search


async def _slowed(reading: repository.Reading, principal: Any, query: Query, *args: Any) -> Any:
    if any(MARKER in term.tokens for term in query.terms):
        await reading.fetch(SLOW[dialect()], [])
    return await _search(reading, principal, query, *args)


repository.search = _slowed  # type: ignore[assignment]
