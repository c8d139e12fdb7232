"""The sign-in throttle under attack (issue 15 points 1 and 2): bursts of truly concurrent
wrong passwords against the real app and database, and limits an attacker elsewhere cannot
turn against a clinician."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from quart.testing import QuartClient as Client

from bff import throttle as window
from bff.audit.models import AuditLog
from bff.auth import passwords, throttle
from bff.auth.passwords import HASHING_AT_ONCE, MAX_WAITING_CHECKS
from bff.users.models import Role
from tests.auth.test_login import login
from tests.conftest import make_settings, started_app
from tests.factories import PASSWORD, make_user


async def _burst(client: Client, attempts: list[tuple[str, str]]) -> list[Any]:
    """Send every (username, address) attempt with a wrong password at once."""
    return list(
        await asyncio.gather(*(login(client, user, "wrong", addr=addr) for user, addr in attempts))
    )


def _statuses(responses: list[Any]) -> Counter[int]:
    return Counter(response.status_code for response in responses)


@pytest.fixture
def unbounded_checking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lift the per-process bounds on attempts checked at once, so that only the counting
    itself stands between a burst and the password check."""
    monkeypatch.setattr(throttle, "MAX_CHECKING_PER_USERNAME", 1000)
    monkeypatch.setattr(throttle, "MAX_CHECKING_PER_ADDRESS", 1000)


async def test_a_burst_for_one_user_gets_at_most_the_limit_of_password_checks(
    database_url: str, run_dir: Path, counters: str, unbounded_checking: None
) -> None:
    """25 simultaneous wrong passwords for one user from one address: each is counted before
    its password is checked, so 5 (the pair limit) are checked and 20 refused."""
    settings = make_settings(database_url, run_dir, redis_url=counters)
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.NURSE, username="burst-target")
        responses = await _burst(client, [("burst-target", "10.20.0.1")] * 25)
        assert _statuses(responses) == {401: 5, 429: 20}
        for response in responses:
            if response.status_code == 429:
                assert int(response.headers["Retry-After"]) > 0
                message = (await response.get_json())["message"]
                assert "Too many failed sign-in attempts" in message
        assert await AuditLog.filter(operation="login_failed").count() == 5
        assert (await login(client, "burst-target", addr="10.20.0.1")).status_code == 429
        # elsewhere the user signs in, and that success gives its attempt back
        assert (await login(client, "burst-target", addr="10.20.0.2")).status_code == 200


async def test_a_burst_from_one_address_gets_at_most_its_limit(
    database_url: str, run_dir: Path, unbounded_checking: None
) -> None:
    """60 simultaneous wrong passwords for 60 usernames from one address: at most the
    per-address limit reach a password check (the others: 429 at once)."""
    settings = make_settings(database_url, run_dir, login_max_failures_per_address=6)
    async with started_app(settings) as app:
        client = app.test_client()
        responses = await _burst(client, [(f"guess-{i}", "10.21.0.1") for i in range(60)])
        assert _statuses(responses) == {401: 6, 429: 54}


async def test_attempts_checked_at_once_are_bounded_per_user_and_per_address(
    client: Client,
) -> None:
    """Without lifting the bounds: a burst for one user, or from one address, has at most 2
    (per username) or 4 (per address) passwords checked at once; the rest is refused with
    Retry-After, not queued."""
    await make_user(Role.NURSE, username="bounded")
    one_user = _statuses(await _burst(client, [("bounded", f"10.22.0.{i}") for i in range(20)]))
    assert one_user[401] <= throttle.MAX_CHECKING_PER_USERNAME
    assert one_user[429] >= 20 - throttle.MAX_CHECKING_PER_USERNAME
    one_address = _statuses(await _burst(client, [(f"who-{i}", "10.23.0.1") for i in range(20)]))
    assert one_address[401] <= throttle.MAX_CHECKING_PER_ADDRESS
    assert one_address[429] >= 20 - throttle.MAX_CHECKING_PER_ADDRESS


async def test_a_burst_from_many_addresses_is_refused_beyond_the_check_queue(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 wrong passwords from 40 addresses: the password checks waiting at once are bounded,
    the rest refused at once (429, Retry-After) rather than queued in front of everyone; a
    clinician at an address they signed in from before still gets through behind the burst.

    Every check (the real argon2 verification) is held at a gate until the whole burst has been
    answered or queued, so that none finishes and frees a place while requests are still
    arriving (on a loaded machine a request can reach the queue half a second late)."""
    await make_user(Role.DOCTOR, username="clinician")
    assert (await login(client, "clinician", addr="10.24.1.1")).status_code == 200
    gate = threading.Event()
    real_verify = passwords._verify

    def held_verify(stored_hash: str, password: str) -> bool:
        gate.wait(30)
        return real_verify(stored_hash, password)

    monkeypatch.setattr(passwords, "_verify", held_verify)
    finished: list[int] = []  # the statuses in the order the responses came back

    async def probe(i: int) -> Any:
        response = await login(client, f"probe-{i}", "wrong", addr=f"10.24.0.{i}")
        finished.append(response.status_code)
        return response

    async def until(condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(30):
            while not condition():  # noqa: ASYNC110 - polling counts the app keeps
                await asyncio.sleep(0.01)

    try:
        burst = [asyncio.ensure_future(probe(i)) for i in range(40)]
        await until(lambda: len(finished) + passwords._SLOTS.waiting >= 40)
        queued = passwords._SLOTS.waiting
        clinician_login = asyncio.ensure_future(login(client, "clinician", addr="10.24.1.1"))
        await until(lambda: passwords._SLOTS.waiting > queued)  # the clinician is queued
    finally:
        gate.set()
    clinician = await clinician_login
    checked_before = finished.count(401)
    statuses = _statuses(list(await asyncio.gather(*burst)))
    assert clinician.status_code == 200
    assert queued == HASHING_AT_ONCE + MAX_WAITING_CHECKS
    # The clinician's check went ahead of the queued ones: only those running when it arrived
    # (and the one given the other slot as the first of them finished) could finish first.
    assert checked_before <= 2 * HASHING_AT_ONCE
    assert statuses[401] == HASHING_AT_ONCE + MAX_WAITING_CHECKS
    assert statuses[429] == 40 - HASHING_AT_ONCE - MAX_WAITING_CHECKS
    assert all(
        response.headers["Retry-After"]
        for response in await asyncio.gather(*burst)
        if response.status_code == 429
    )


async def test_wrong_passwords_elsewhere_do_not_lock_the_user_out(client: Client) -> None:
    """Five wrong passwords from one address stop that address for that user only: the user
    signs in from anywhere else, and other users from that address."""
    await make_user(Role.ADMIN, username="chief")
    await make_user(Role.NURSE, username="neighbour")
    for _ in range(5):
        assert (await login(client, "chief", "wrong", addr="10.25.0.66")).status_code == 401
    assert (await login(client, "chief", addr="10.25.0.66")).status_code == 429
    assert (await login(client, "chief", addr="10.25.0.1")).status_code == 200
    assert (await login(client, "neighbour", addr="10.25.0.66")).status_code == 200


async def test_successful_sign_ins_do_not_count_against_the_address(
    database_url: str, run_dir: Path
) -> None:
    """Many people behind one address (a ward's NAT) sign in: only failures count."""
    settings = make_settings(database_url, run_dir, login_max_failures_per_address=3)
    async with started_app(settings) as app:
        client = app.test_client()
        for i in range(5):
            await make_user(Role.NURSE, username=f"ward-nurse-{i}")
            assert (await login(client, f"ward-nurse-{i}", addr="10.26.0.1")).status_code == 200


async def test_beyond_the_username_ceiling_attempts_slow_down_but_are_never_blocked(
    database_url: str, run_dir: Path, counters: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wrong passwords for one user from many addresses: past the per-username ceiling each
    further attempt waits twice as long after the previous one (1 s, 2 s, 4 s...), never a
    lockout; from an address the user signed in from before, no wait at all."""
    clock = [1_900_000_000.0]
    monkeypatch.setattr(window.time, "time", lambda: clock[0])
    settings = make_settings(
        database_url, run_dir, redis_url=counters, login_max_failures_per_username=3
    )
    async with started_app(settings) as app:
        client = app.test_client()
        await make_user(Role.DOCTOR, username="wanted")
        assert (await login(client, "wanted", addr="10.27.1.1")).status_code == 200
        for i in range(3):
            assert (await login(client, "wanted", "wrong", addr=f"10.27.0.{i}")).status_code == 401
        for expected_wait in (1, 2, 4):
            slowed = await login(client, "wanted", addr="10.27.0.200")
            assert slowed.status_code == 429
            assert slowed.headers["Retry-After"] == str(expected_wait)
            assert f"{expected_wait} second" in (await slowed.get_json())["message"]
            # from the user's own address: no wait
            assert (await login(client, "wanted", addr="10.27.1.1")).status_code == 200
            clock[0] += expected_wait
            assert (
                await login(client, "wanted", "wrong", addr=f"10.27.2.{expected_wait}")
            ).status_code == 401
        clock[0] += 10_000  # past the window: the ceiling starts afresh
        assert (await login(client, "wanted", PASSWORD, addr="10.27.0.200")).status_code == 200
