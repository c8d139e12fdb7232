"""Attempts counted in a moving window, shared by every process.

One mechanism for every limit on attempts (sign-in and its second step, SmartToken
verification, single sign-on's public endpoints, searches). An attempt is reserved before the
work it guards (`reserve`: checked and counted at once, atomically, for every key it touches),
so a burst cannot pass the check together; a reservation is given back when the attempt turns
out good (`release`). A key's limit is either hard (refused until entries leave the window) or
a back-off (beyond the limit each further attempt waits twice as long after the previous one, at
most BACKOFF_CAP seconds: slowed, never locked).

Where the entries live:
- `durable` counters (the brute-force guards: sign-in, SmartToken verification) count in the
  database alone, table `throttle_entries`, whether or not Redis is configured or reachable: a Redis
  outage, or Redis returning empty, changes nothing (it let each process allow the limit on its
  own, 5 wrong passwords per process, and forgot what Redis held). A reservation checks and
  counts in one transaction that holds its keys (PostgreSQL: an advisory lock per key, taken in
  order; SQLite: BEGIN IMMEDIATE's write lock), so processes cannot both pass. Without the
  database the guarded work cannot run either (503, never open). Keys are stored hashed (no
  username or address in the table), at most MAX_ENTRIES_PER_KEY per key; rows past their
  window are deleted by each process at most every SWEEP_SECONDS. A refusal is decided on
  reads alone, before any lock. (No count of this process's own beside it: it would go stale
  when another process clears a key, at a user's right password there.)
- the others (load limits: single sign-on requests per address, searches per user) count in
  this process (bounded in keys) and, when BFF_REDIS_URL is set, in Redis: sorted sets, one
  Lua script per reservation; an attempt must pass both (this process's count is a floor under
  Redis's). If Redis is unreachable they go on with this process's counts alone (logged, and
  Redis is left alone for REDIS_RETRY_SECONDS after a failure): never open, but each process
  then allows the limit on its own.
Marks (`mark`, `marked`: the addresses a user signed in from) are kept in this process and in
Redis: during a Redis outage a process knows only its own, so an account may be held by the
stricter limits of an unknown address.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import secrets
import time
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache
from redis import asyncio as aioredis
from tortoise import fields
from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.models import Model

from bff.db import dialect, fetch, transaction
from config.settings import Settings

log = logging.getLogger(__name__)

BACKOFF_CAP = 60  # seconds: the longest wait a back-off key imposes between two attempts
MAX_KEYS = 100_000  # keys kept in process memory (without Redis); the oldest go first
MAX_ENTRIES_PER_KEY = 1_000  # entries kept per key: bounds what a back-off key can grow to
MARK_SECONDS = 30 * 24 * 3600  # how long a mark (`mark`, `marked`) lasts
REDIS_RETRY_SECONDS = 1.0  # after Redis failed, this process's counts alone for this long
SWEEP_SECONDS = 60.0  # each process deletes the database's rows past their window this often
LOCK_CLASS = 0x7468726F  # PostgreSQL advisory locks (class, key) of the durable counters' keys


@dataclass(frozen=True)
class Limit:
    """At most `limit` attempts per window under `key`; `backoff`: slow down beyond it."""

    key: str
    limit: int
    backoff: bool = False


def _wait(entries: list[float], limit: Limit, now: float, window: float) -> float:
    """Seconds until limit admits one more attempt, given its entries in the window (sorted)."""
    count = len(entries)
    if count < limit.limit:
        return 0.0
    return _wait_counted(count, entries[-1], entries[count - limit.limit], limit, now, window)


def _wait_counted(
    count: int, newest: float, deciding: float, limit: Limit, now: float, window: float
) -> float:
    """The same from a count of at least the limit, the newest entry's time and the time of
    the limit-th newest (`deciding`: when it leaves the window, a hard limit admits again)."""
    if limit.backoff:
        return newest + min(2.0 ** min(count - limit.limit, 32), BACKOFF_CAP) - now
    return deciding + window - now


# KEYS: the limits' keys. ARGV: now, window, member, backoff cap, max entries, then per key its
# limit and 1 for a back-off. Returns the wait in seconds as text ("0": reserved).
_RESERVE = """
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local cap, keep = tonumber(ARGV[4]), tonumber(ARGV[5])
local wait = 0
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local limit, backoff = tonumber(ARGV[4 + 2 * i]), ARGV[5 + 2 * i] == '1'
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local w
    if backoff then
      local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
      w = tonumber(newest[2]) + math.min(2 ^ math.min(count - limit, 32), cap) - now
    else
      local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
      w = tonumber(oldest[2]) + window - now
    end
    if w > wait then wait = w end
  end
end
if wait > 0 then return tostring(wait) end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('ZREMRANGEBYRANK', key, 0, -keep - 1)
  redis.call('EXPIRE', key, math.ceil(window))
end
return '0'
"""


class _Memory:
    """The entries of one process (no Redis): key -> {member: time}."""

    def __init__(self, window: float) -> None:
        self._keys: TTLCache[str, dict[str, float]] = TTLCache(MAX_KEYS, window, time.monotonic)
        self._marks: TTLCache[str, bool] = TTLCache(MAX_KEYS, MARK_SECONDS, time.monotonic)
        self._window = window

    def _entries(self, key: str, now: float) -> dict[str, float]:
        entries = {m: t for m, t in self._keys.get(key, {}).items() if t > now - self._window}
        return entries

    def reserve(self, limits: list[Limit], member: str, now: float) -> float:
        # No await in here: one event loop makes it atomic.
        wait = 0.0
        for limit in limits:
            times = sorted(self._entries(limit.key, now).values())
            wait = max(wait, _wait(times, limit, now, self._window))
        if wait <= 0:
            for limit in limits:
                entries = self._entries(limit.key, now)
                entries[member] = now
                if len(entries) > MAX_ENTRIES_PER_KEY:
                    entries.pop(min(entries, key=entries.__getitem__))
                self._keys[limit.key] = entries
        return wait

    def release(self, keys: list[str], member: str) -> None:
        for key in keys:
            entries = self._keys.get(key)
            if entries is not None:
                entries.pop(member, None)

    def clear(self, key: str) -> None:
        self._keys.pop(key, None)

    def mark(self, key: str) -> None:
        self._marks[key] = True

    def marked(self, key: str) -> bool:
        return key in self._marks


class ThrottleEntry(Model):
    """One attempt counted by a durable throttle under one key, until it leaves the window
    (bff/throttle.py): the key hashed, the reservation it belongs to, when it expires."""

    id = fields.BigIntField(primary_key=True)
    key_hash = fields.CharField(max_length=32)
    member = fields.CharField(max_length=16)
    expires = fields.FloatField(db_index=True)

    class Meta:
        table = "throttle_entries"
        indexes = (("key_hash", "expires"),)


def _hashed(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class _Database:
    """The entries every process shares, in `throttle_entries` (the durable counters)."""

    _swept = -math.inf  # monotonic time of this process's last sweep (of every durable counter)

    def __init__(self, window: float) -> None:
        self._window = window

    async def reserve(self, limits: list[Limit], keys: list[str], member: str, now: float) -> float:
        """Check every limit and count member under every key when none is reached, in one
        transaction holding the keys: the wait in seconds (0: counted)."""
        # A refusal costs reads alone: no lock and, on SQLite, not the database's write lock
        # (what an attacker repeating a refused attempt can make it cost).
        wait, _ = await self._waits(None, limits, keys, now)
        if wait > 0:
            return wait
        async with transaction() as conn:
            if dialect(conn) == "postgres":
                # In one order, so two reservations sharing keys cannot deadlock. (SQLite:
                # `transaction` began IMMEDIATE, holding the database's one write lock.)
                for key in sorted(set(keys)):
                    lock = int(key[:8], 16) - 2**31
                    await fetch("SELECT pg_advisory_xact_lock(?, ?)", LOCK_CLASS, lock, conn=conn)
            wait, counts = await self._waits(conn, limits, keys, now)
            if wait > 0:
                return wait
            for key, count in zip(keys, counts, strict=True):
                if count >= MAX_ENTRIES_PER_KEY:  # the oldest make room
                    await fetch(
                        "DELETE FROM throttle_entries WHERE id IN (SELECT id FROM"
                        " throttle_entries WHERE key_hash = ? AND expires > ? ORDER BY expires"
                        " LIMIT ?)",
                        key,
                        now,
                        count - MAX_ENTRIES_PER_KEY + 1,
                        conn=conn,
                    )
            rows = ", ".join("(?, ?, ?)" for _ in keys)
            values = [v for key in keys for v in (key, member, now + self._window)]
            await fetch(
                f"INSERT INTO throttle_entries (key_hash, member, expires) VALUES {rows}",  # noqa: S608 - placeholders only
                *values,
                conn=conn,
            )
        await self._sweep(now)
        return 0.0

    async def _waits(
        self, conn: BaseDBAsyncClient | None, limits: list[Limit], keys: list[str], now: float
    ) -> tuple[float, list[int]]:
        wait, counts = 0.0, []
        for limit, key in zip(limits, keys, strict=True):
            row = (
                await fetch(
                    "SELECT COUNT(*) AS n, MAX(expires) AS newest FROM throttle_entries"
                    " WHERE key_hash = ? AND expires > ?",
                    key,
                    now,
                    conn=conn,
                )
            )[0]
            count = int(row["n"])
            counts.append(count)
            if count < limit.limit:
                continue
            # Rows hold when they expire: an entry's time is that less the window.
            newest = float(row["newest"]) - self._window
            deciding = newest  # a back-off waits from the newest; a hard limit from this:
            if not limit.backoff:
                nth = await fetch(
                    "SELECT expires FROM throttle_entries WHERE key_hash = ? AND expires > ?"
                    " ORDER BY expires DESC LIMIT 1 OFFSET ?",
                    key,
                    now,
                    limit.limit - 1,
                    conn=conn,
                )
                deciding = float(nth[0]["expires"]) - self._window
            wait = max(wait, _wait_counted(count, newest, deciding, limit, now, self._window))
        return wait, counts

    async def release(self, keys: list[str], member: str) -> None:
        marks = ", ".join("?" for _ in keys)
        await fetch(
            f"DELETE FROM throttle_entries WHERE member = ? AND key_hash IN ({marks})",  # noqa: S608 - placeholders only
            member,
            *keys,
        )

    async def clear(self, key: str) -> None:
        await fetch("DELETE FROM throttle_entries WHERE key_hash = ?", key)

    async def _sweep(self, now: float) -> None:
        """Delete every durable counter's rows past their window, at most every SWEEP_SECONDS
        in this process (a key's own count ignores them meanwhile)."""
        if time.monotonic() < _Database._swept + SWEEP_SECONDS:
            return
        _Database._swept = time.monotonic()
        await fetch("DELETE FROM throttle_entries WHERE expires <= ?", now)


class FailureCounter:
    """Attempts per key within a window, reserved before the work they guard; `durable`: the
    shared count is the database's (a brute-force guard), else Redis's when configured."""

    def __init__(
        self, settings: Settings, prefix: str, window_seconds: int, *, durable: bool = False
    ) -> None:
        self._window = window_seconds
        self._prefix = prefix
        # This process's own entries and marks: all there is without Redis, the floor with it
        # (a durable counter's entries are the database's alone).
        self._memory = _Memory(window_seconds)
        self._database = _Database(window_seconds) if durable else None
        self._redis: Any = None
        self._down_until = 0.0  # monotonic time before which Redis is not asked again
        if settings.redis_url:
            self._redis = aioredis.Redis.from_url(
                settings.redis_url, socket_timeout=1, socket_connect_timeout=1
            )
            self._script = self._redis.register_script(_RESERVE)

    def _key(self, key: str) -> str:
        return f"{self._prefix}:{key}"

    def _hashed(self, keys: list[str]) -> list[str]:
        return [_hashed(self._key(key)) for key in keys]

    def _shared(self) -> bool:
        """Whether to ask Redis now (configured, and not failed in the last moment)."""
        return self._redis is not None and time.monotonic() >= self._down_until

    def _unavailable(self, exc: Exception, what: str) -> None:
        self._down_until = time.monotonic() + REDIS_RETRY_SECONDS
        log.warning(
            "%s throttle: Redis unavailable (%s); %s", self._prefix, type(exc).__name__, what
        )

    async def _redis_wait(self, limits: list[Limit], member: str, now: float) -> float:
        """The wait Redis's shared entries impose (adding member under every key when 0)."""
        args: list[Any] = [now, self._window, member, BACKOFF_CAP, MAX_ENTRIES_PER_KEY]
        for limit in limits:
            args += [limit.limit, 1 if limit.backoff else 0]
        keys = [self._key(limit.key) for limit in limits]
        return float(await self._script(keys=keys, args=args))

    async def reserve(self, limits: list[Limit]) -> tuple[str | None, int | None]:
        """Count one attempt against every limit unless one is reached: (reservation, None),
        or (None, seconds to wait) and nothing counted."""
        member = secrets.token_hex(8)
        now = time.time()
        keys = [limit.key for limit in limits]
        if self._database is not None:  # its failure is the caller's: never open
            wait = await self._database.reserve(limits, self._hashed(keys), member, now)
        else:
            # No await before this process's check and count: one event loop makes it atomic.
            wait = self._memory.reserve(limits, member, now)
            if wait <= 0 and self._shared():
                try:
                    wait = await self._redis_wait(limits, member, now)
                except Exception as exc:  # noqa: BLE001 - a guard must never take the service down
                    self._unavailable(exc, "counting in this process only")
                if wait > 0:  # refused by the shared count: it does not count here either
                    self._memory.release(keys, member)
        if wait > 0:
            return None, max(1, math.ceil(wait))
        return member, None

    async def release(self, reservation: str | None, keys: list[str]) -> None:
        """Give a reservation back: the attempt it counted no longer counts under keys."""
        if reservation is None:
            return
        if self._database is not None:
            await self._database.release(self._hashed(keys), reservation)
            return
        self._memory.release(keys, reservation)
        if self._shared():
            try:
                for key in keys:
                    await self._redis.zrem(self._key(key), reservation)
            except Exception as exc:  # noqa: BLE001
                self._unavailable(exc, "not released there")

    async def failed(self, limits: list[Limit]) -> None:
        """Count one failure against each limit, reached or not."""
        now = time.time()
        member = secrets.token_hex(8)
        # Past MAX_ENTRIES_PER_KEY the oldest make room: never refused.
        unlimited = [Limit(limit.key, MAX_ENTRIES_PER_KEY + 1) for limit in limits]
        if self._database is not None:
            keys = self._hashed([limit.key for limit in limits])
            await self._database.reserve(unlimited, keys, member, now)
            return
        self._memory.reserve(unlimited, member, now)
        if self._shared():
            try:
                for limit in limits:
                    key = self._key(limit.key)
                    await self._redis.zadd(key, {member: now})
                    await self._redis.zremrangebyrank(key, 0, -MAX_ENTRIES_PER_KEY - 1)
                    await self._redis.expire(key, self._window)
            except Exception as exc:  # noqa: BLE001
                self._unavailable(exc, "not counted there")

    async def clear(self, key: str) -> None:
        """Forget a key's attempts."""
        if self._database is not None:
            await self._database.clear(_hashed(self._key(key)))
            return
        self._memory.clear(key)
        if self._shared():
            try:
                await self._redis.delete(self._key(key))
            except Exception as exc:  # noqa: BLE001
                self._unavailable(exc, "not cleared there")

    async def mark(self, key: str) -> None:
        """Remember key for MARK_SECONDS (e.g. an address a user signed in from)."""
        self._memory.mark(key)
        if self._shared():
            try:
                await self._redis.set(self._key(key), 1, ex=MARK_SECONDS)
            except Exception as exc:  # noqa: BLE001
                self._unavailable(exc, "not marked there")

    async def marked(self, key: str) -> bool:
        """Whether key was marked within MARK_SECONDS (here, or by any process through Redis)."""
        if self._memory.marked(key):
            return True
        if not self._shared():
            return False
        try:
            return bool(await self._redis.exists(self._key(key)))
        except Exception as exc:  # noqa: BLE001
            self._unavailable(exc, "marks of other processes unknown")
            return False

    async def aclose(self) -> None:
        """Close the Redis connections (when the app stops)."""
        if self._redis is not None:
            with contextlib.suppress(Exception):  # closing an unreachable connection
                await self._redis.aclose()


def minutes_text(seconds: int) -> str:
    """'1 minute', '3 minutes'."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def wait_text(seconds: int) -> str:
    """'5 seconds' under a minute, else as minutes_text."""
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    return minutes_text(seconds)
