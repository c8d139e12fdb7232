"""The sign-in limit through a Redis outage (issue 48, item 2), on the real app, its database
and a Redis of the test's own: a second LoginThrottle stands for another worker (its own
process counts) checking passwords the one way sign-in does (`checked_password`). However
the attempts are spread over the two, the pair limit (5) holds while Redis is down, for an
account already at it, and after Redis returns empty."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from quart import Quart

from bff import throttle as window
from bff.audit.models import AuditLog
from bff.auth.service import checked_password
from bff.auth.throttle import LoginThrottle
from bff.errors import ApiError
from bff.users.models import Role
from tests.auth.test_login import login
from tests.conftest import make_settings, started_app
from tests.factories import PASSWORD, make_user
from tools.devserver import RedisProcess

ADDRESS = "10.48.2.1"
TOO_MANY = "Too many failed sign-in attempts. Please try again in"


@pytest.fixture
async def app(
    database_url: str, run_dir: Path, redis: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Quart]:
    monkeypatch.setattr(window, "REDIS_RETRY_SECONDS", 0)  # ask Redis again at every attempt
    async with started_app(make_settings(database_url, run_dir, redis_url=redis.url)) as app:
        yield app


@pytest.fixture
async def other_worker(
    app: Quart, database_url: str, run_dir: Path, redis: RedisProcess
) -> AsyncIterator[LoginThrottle]:
    """Another worker's throttle: the same settings, its own process counts."""
    throttle = LoginThrottle(make_settings(database_url, run_dir, redis_url=redis.url))
    yield throttle
    await throttle.aclose()


async def _app_attempt(app: Quart, username: str) -> int:
    response = await login(app.test_client(), username, "wrong", addr=ADDRESS)
    if response.status_code == 429:
        assert (await response.get_json())["message"].startswith(TOO_MANY)
        assert int(response.headers["Retry-After"]) > 0
    return response.status_code


async def _other_attempt(throttle: LoginThrottle, username: str) -> int:
    try:
        async with checked_password(username, "wrong", ADDRESS, throttle):
            raise AssertionError("a wrong password was accepted")
    except ApiError as refused:
        if refused.status == 429:
            assert str(refused).startswith(TOO_MANY)
        return refused.status


async def _alternating(app: Quart, other: LoginThrottle, username: str, times: int) -> list[int]:
    """Wrong passwords for username, every other one checked by the other worker."""
    statuses = []
    for n in range(times):
        if n % 2:
            statuses.append(await _other_attempt(other, username))
        else:
            statuses.append(await _app_attempt(app, username))
    return statuses


async def _evaluated(username: str) -> int:
    return await AuditLog.filter(operation="login_failed", name=username).count()


async def test_the_pair_limit_holds_through_a_redis_outage_and_its_return(
    app: Quart, other_worker: LoginThrottle, redis: RedisProcess
) -> None:
    """Before the outage: one account reaches its limit, one has 3 failures. Redis stops: a
    fresh account gets 5 wrong passwords checked over both workers (the 6th on: 429), the one
    at its limit none, and the right password of someone else signs in. Redis comes back
    empty: the account with 3 failures gets 2 more, and so does one that got 3 during the
    outage."""
    for name in ("at-limit", "three-before", "fresh", "three-during", "bystander"):
        await make_user(Role.NURSE, username=name)
    assert await _alternating(app, other_worker, "at-limit", 5) == [401] * 5
    assert await _alternating(app, other_worker, "three-before", 3) == [401] * 3

    redis.stop()
    assert await _alternating(app, other_worker, "fresh", 12) == [401] * 5 + [429] * 7
    assert await _evaluated("fresh") == 5
    assert await _alternating(app, other_worker, "at-limit", 6) == [429] * 6
    assert await _evaluated("at-limit") == 5
    assert await _alternating(app, other_worker, "three-during", 3) == [401] * 3
    assert (await login(app.test_client(), "bystander", PASSWORD, addr=ADDRESS)).status_code == 200

    redis.start()  # empty: it was killed without saving
    for name in ("three-before", "three-during"):
        assert await _alternating(app, other_worker, name, 6) == [401] * 2 + [429] * 4
        assert await _evaluated(name) == 5
    assert (await login(app.test_client(), "at-limit", addr=ADDRESS)).status_code == 429
    # elsewhere the account signs in (and only the pair from ADDRESS stays held)
    assert (await login(app.test_client(), "fresh", PASSWORD, addr="10.48.3.1")).status_code == 200
