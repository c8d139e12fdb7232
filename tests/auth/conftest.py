"""What the sign-in tests share: where the throttle's counters live."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tools.devserver import running_redis


@pytest.fixture(params=["memory", "redis"])
def counters(request: pytest.FixtureRequest) -> Iterator[str]:
    """Where the counters live: this process, or a Redis of the test's own."""
    if request.param == "memory":
        yield ""
        return
    with running_redis() as redis:
        yield redis.url
