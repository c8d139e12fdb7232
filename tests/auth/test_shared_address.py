"""Sign-in from an address many people share (issue 30 points 3 and 10a, issue 31 point 4), on
the real app and database: spraying from it cannot lock out the accounts that sign in there,
every spelling of a username is one username to the throttle, and a Redis outage leaves the
throttle counting (in the database) instead of open."""

from __future__ import annotations

from pathlib import Path

import pytest
from quart import Quart
from quart.testing import QuartClient as Client

from bff import throttle as window
from bff.audit.models import AuditLog
from bff.auth.throttle import LoginThrottle
from bff.errors import ApiError
from bff.users.models import Role
from config.settings import Settings
from tests.auth.test_login import login
from tests.conftest import make_settings, started_app
from tests.factories import PASSWORD, make_user
from tools.devserver import RedisProcess

WARD = "10.30.0.1"  # a hospital's one outgoing address
SPRAYED = "Winter2026!"


async def test_spraying_from_a_shared_address_does_not_lock_its_clinicians_out(
    database_url: str, run_dir: Path, counters: str
) -> None:
    """Failures for unknown accounts fill the address's limit; the accounts that signed in
    from the address before still sign in with their right password. The spray stays refused,
    an account new to the address waits like the attacker, and a known account's wrong
    passwords are still held by the pair limit (and count against the address)."""
    settings = make_settings(
        database_url, run_dir, redis_url=counters, login_max_failures_per_address=6
    )
    async with started_app(settings) as app:
        client = app.test_client()
        for username in ("chief", "ward.nurse", "new.doctor"):
            await make_user(Role.DOCTOR, username=username)
        for username in ("chief", "ward.nurse"):  # they work here
            assert (await login(client, username, addr=WARD)).status_code == 200
        sprayed = [
            (await login(client, f"spray-{i}", SPRAYED, addr=WARD)).status_code for i in range(9)
        ]
        assert sprayed == [401] * 6 + [429] * 3
        assert (await login(client, "chief", addr=WARD)).status_code == 200
        assert (await login(client, "ward.nurse", addr=WARD)).status_code == 200
        assert (await login(client, "new.doctor", addr=WARD)).status_code == 429
        # The attacker tries a known account: five guesses (the pair limit), then refused, even
        # the right password; the spray is refused still; chief signs in from elsewhere.
        for _ in range(5):
            assert (await login(client, "chief", SPRAYED, addr=WARD)).status_code == 401
        assert (await login(client, "chief", addr=WARD)).status_code == 429
        assert (await login(client, "spray-x", SPRAYED, addr=WARD)).status_code == 429
        assert (await login(client, "chief", addr="10.30.9.9")).status_code == 200
        assert (await login(client, "ward.nurse", addr=WARD)).status_code == 200
        assert await AuditLog.filter(operation="login_failed").count() == 11


async def test_wrong_passwords_of_a_known_account_count_against_the_address(
    database_url: str, run_dir: Path
) -> None:
    """Guessing at known accounts brings the address's limit nearer for everyone else."""
    settings = make_settings(database_url, run_dir, login_max_failures_per_address=6)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.ADMIN, username="chief")
        assert (await login(client, "chief", addr=WARD)).status_code == 200
        for _ in range(5):
            assert (await login(client, "chief", SPRAYED, addr=WARD)).status_code == 401
        assert (await login(client, "spray-0", SPRAYED, addr=WARD)).status_code == 401
        assert (await login(client, "spray-1", SPRAYED, addr=WARD)).status_code == 429


FULL_WIDTH_CHIEF = "\uff23\uff28\uff29\uff25\uff26"
SPELLINGS = ("Chief", "CHIEF", " chief", "chief\t", FULL_WIDTH_CHIEF)


async def test_every_spelling_of_a_username_is_one_username(client: Client) -> None:
    """Case, spaces around it and full-width letters: five wrong passwords under five spellings
    reach the pair limit of one username, and the user signs in under any spelling elsewhere."""
    await make_user(Role.ADMIN, username="chief")
    for spelling in SPELLINGS:
        assert (await login(client, spelling, SPRAYED, addr="10.31.0.1")).status_code == 401
    for spelling in ("chief", " Chief "):
        assert (await login(client, spelling, addr="10.31.0.1")).status_code == 429
    for i, spelling in enumerate(SPELLINGS):
        assert (await login(client, spelling, addr=f"10.31.1.{i}")).status_code == 200


async def test_the_throttle_itself_keys_every_spelling_as_one(
    app: Quart, settings: Settings
) -> None:
    """The mechanism, whoever calls it (sign-in, second step, identity checks): attempts under
    every spelling count under one key, and a known address is known under every spelling
    (the app started: the counts are the database's)."""
    throttle = LoginThrottle(settings)
    try:
        for spelling in SPELLINGS:  # five failures: nothing given back
            async with throttle.attempt(spelling, "10.32.0.1"):
                pass
        with pytest.raises(ApiError) as refused:
            async with throttle.attempt("chief", "10.32.0.1"):
                pass
        assert refused.value.status == 429
        async with throttle.attempt(" CHIEF", "10.32.0.2") as attempt:
            await attempt.succeeded()
        async with throttle.attempt("\uff43\uff48\uff49\uff45\uff46", "10.32.0.2") as attempt:
            assert attempt.known
            await throttle.release(attempt)
    finally:
        await throttle.aclose()


async def test_with_redis_down_the_throttle_counts_in_this_process(
    database_url: str, run_dir: Path, redis: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis (a redis-server of this test's own) stops after one wrong password: the next
    wrong passwords are counted with the one before the outage (the database's count), so the
    fifth in all is the last checked; the right password elsewhere still signs in. When Redis
    is back (empty), the count still holds (several processes: test_sign_in_outage.py)."""
    monkeypatch.setattr(window, "REDIS_RETRY_SECONDS", 0)  # ask Redis again at once
    settings = make_settings(database_url, run_dir, redis_url=redis.url)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="outage.target")
        assert (await login(client, "outage.target", addr="10.12.1.1")).status_code == 200
        assert (await login(client, "outage.target", SPRAYED, addr="10.33.0.1")).status_code == 401
        redis.stop()
        during = [
            (await login(client, "outage.target", SPRAYED, addr="10.33.0.1")).status_code
            for _ in range(6)
        ]
        assert during == [401] * 4 + [429] * 2
        assert (await login(client, "outage.target", addr="10.33.0.1")).status_code == 429
        assert (await login(client, "outage.target", addr="10.33.0.2")).status_code == 200
        # an address the user signed in from before the outage is still theirs
        assert (await login(client, "outage.target", addr="10.12.1.1")).status_code == 200
        assert await AuditLog.filter(operation="login_failed").count() == 5
        redis.start()
        assert (await login(client, "outage.target", addr="10.33.0.1")).status_code == 429
        assert (await login(client, "outage.target", PASSWORD, addr="10.33.0.3")).status_code == 200
