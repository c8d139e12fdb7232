"""The session cache: what it keeps, for how long, and everything that makes it forget."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from bff.auth.session_cache import SessionCache
from bff.auth.sessions import Principal
from bff.live.events import ASSIGNMENTS_CHANGED, SESSION_REVOKED, USERS_CHANGED
from bff.users.models import Role

LATER = datetime.now(UTC) + timedelta(hours=1)


def principal(user_id: int = 1, session_id: str = "s1") -> Principal:
    return Principal(user_id, f"User {user_id}", f"user{user_id}", Role.NURSE, session_id)


def test_keeps_a_session_until_its_time_is_up(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    cache = SessionCache(10)
    cache.put(cache.generation(), principal(), LATER)
    assert cache.get("s1") == principal()
    now[0] += 9
    assert cache.get("s1") == principal()
    now[0] += 2
    assert cache.get("s1") is None


def test_never_past_the_session_expiry() -> None:
    cache = SessionCache(10)
    cache.put(cache.generation(), principal(), datetime.now(UTC) - timedelta(seconds=1))
    assert cache.get("s1") is None


def test_a_read_that_raced_a_change_is_not_kept() -> None:
    cache = SessionCache(10)
    before = cache.generation()  # a request starts reading the session...
    cache.forget_session("s1")  # ...while a sign-out commits
    cache.put(before, principal(), LATER)
    assert cache.get("s1") is None
    cache.put(cache.generation(), principal(), LATER)  # a read after the change is kept
    assert cache.get("s1") == principal()


def test_forgets_one_session_or_every_session_of_a_user() -> None:
    cache = SessionCache(10)
    for p in (principal(1, "a"), principal(1, "b"), principal(2, "c")):
        cache.put(cache.generation(), p, LATER)
    cache.forget_session("a")
    assert cache.get("a") is None
    assert cache.get("b") is not None
    cache.forget_user(1)
    assert cache.get("b") is None
    assert cache.get("c") == principal(2, "c")


@pytest.mark.parametrize(
    ("event", "payload", "rooms", "gone"),
    [
        (SESSION_REVOKED, {"reason": "logout"}, ["session:a"], {"a"}),
        (SESSION_REVOKED, {"reason": "logout-all"}, "user:1", {"a", "b"}),
        (SESSION_REVOKED, {"reason": "account-deleted"}, ["user:2"], {"c"}),
        (USERS_CHANGED, {"userId": 1}, ["admins"], {"a", "b"}),
        ("file:uploaded", {"userId": 1}, ["user:1"], set()),
        (SESSION_REVOKED, None, ["admins", "user:x", None], set()),
    ],
)
def test_live_events_from_any_process_make_it_forget(
    event: str, payload: object, rooms: object, gone: set[str]
) -> None:
    cache = SessionCache(10)
    for p in (principal(1, "a"), principal(1, "b"), principal(2, "c")):
        cache.put(cache.generation(), p, LATER)
    cache.forget_for_event(event, payload, rooms)
    assert {sid for sid in "abc" if cache.get(sid) is None} == gone


def test_checked_tokens_are_remembered_until_they_expire() -> None:
    cache = SessionCache(10)
    cache.remember_token("token-1", "s1", time.time() + 60)
    cache.remember_token("token-2", "s2", time.time() - 1)
    assert cache.token_session("token-1") == "s1"
    assert cache.token_session("token-2") is None
    assert cache.token_session("unknown") is None


def test_zero_seconds_keeps_nothing() -> None:
    cache = SessionCache(0)
    cache.put(cache.generation(), principal(), LATER)
    cache.remember_token("token-1", "s1", time.time() + 60)
    assert cache.get("s1") is None
    assert cache.token_session("token-1") is None


def test_bounded_in_size() -> None:
    cache = SessionCache(10, max_entries=100)
    for n in range(250):
        cache.put(cache.generation(), principal(n, f"s{n}"), LATER)
    assert len(cache) == 100


def test_assignments_are_forgotten_when_they_change_or_a_read_raced_a_change() -> None:
    cache = SessionCache(10)
    cache.put_assignments(cache.generation(), 1, "assignments of 1")
    cache.put_assignments(cache.generation(), 2, "assignments of 2")
    cache.forget_for_event(ASSIGNMENTS_CHANGED, {"userId": 1}, ["user:1", "admins"])
    assert cache.assignments(1) is None
    assert cache.assignments(2) == "assignments of 2"
    before = cache.generation()
    cache.forget_user(2)
    cache.put_assignments(before, 2, "stale")
    assert cache.assignments(2) is None


def test_while_distrusted_nothing_is_answered_or_kept_and_older_reads_stay_out() -> None:
    """The Redis link down: other processes' changes go unheard, so every request reads the
    database; when it is back, a read made during the outage is not kept."""
    cache = SessionCache(10)
    cache.put(cache.generation(), principal(1, "a"), LATER)
    cache.put_assignments(cache.generation(), 1, "assignments of 1")
    cache.distrust()
    assert cache.get("a") is None
    assert cache.assignments(1) is None
    during = cache.generation()
    cache.put(during, principal(2, "b"), LATER)
    cache.put_assignments(during, 2, "assignments of 2")
    assert cache.session_ids() == []
    cache.trust()
    cache.put(during, principal(2, "b"), LATER)  # read before the link came back
    cache.put_assignments(during, 2, "stale")
    assert cache.get("a") is None  # nothing from before the outage either
    assert cache.get("b") is None
    assert cache.assignments(2) is None
    cache.put(cache.generation(), principal(2, "b"), LATER)
    cache.put_assignments(cache.generation(), 2, "assignments of 2")
    assert cache.get("b") == principal(2, "b")
    assert cache.assignments(2) == "assignments of 2"
