"""Attempts counted in a moving window, shared by every process through Redis when configured.

One mechanism for every brute-force guard (sign-in, SmartToken verification). An attempt is
reserved before the work it guards (`reserve`: checked and counted at once, atomically, for
every key it touches), so a burst cannot pass the check together; a reservation is given back
when the attempt turns out good (`release`). A key's limit is either hard (refused until
entries leave the window) or a back-off (beyond the limit each further attempt waits twice as
long after the previous one, at most BACKOFF_CAP seconds: slowed, never locked).

Entries live in this process (bounded in keys) and, when BFF_REDIS_URL is set, also in Redis
sorted sets shared by every process (one Lua script per reservation). An attempt must pass
both: this process's own count is a floor under the shared one. If Redis is unreachable the
guards go on with this process's counts alone (logged, and Redis is left alone for
REDIS_RETRY_SECONDS after a failure): never open, but each instance of a deployment then
allows the limit on its own, and what Redis held before the outage is not seen by instances
that did not count it themselves.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import time
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache
from redis import asyncio as aioredis

from config.settings import Settings

log = logging.getLogger(__name__)

BACKOFF_CAP = 60  # seconds: the longest wait a back-off key imposes between two attempts
MAX_KEYS = 100_000  # keys kept in process memory (without Redis); the oldest go first
MAX_ENTRIES_PER_KEY = 1_000  # entries kept per key: bounds what a back-off key can grow to
MARK_SECONDS = 30 * 24 * 3600  # how long a mark (`mark`, `marked`) lasts
REDIS_RETRY_SECONDS = 1.0  # after Redis failed, this process's counts alone for this long


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
    if limit.backoff:
        delay = min(2.0 ** min(count - limit.limit, 32), BACKOFF_CAP)
        return entries[-1] + delay - now
    return entries[count - limit.limit] + window - now


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

    def reserve(self, limits: list[Limit], member: str, now: float, add: bool) -> float:
        # No await in here: one event loop makes it atomic.
        wait = 0.0
        for limit in limits:
            times = sorted(self._entries(limit.key, now).values())
            wait = max(wait, _wait(times, limit, now, self._window))
        if wait <= 0 and add:
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


class FailureCounter:
    """Attempts per key within a window, reserved before the work they guard."""

    def __init__(self, settings: Settings, prefix: str, window_seconds: int) -> None:
        self._window = window_seconds
        self._prefix = prefix
        # This process's own entries: all there is without Redis, and the floor with it.
        self._memory = _Memory(window_seconds)
        self._redis: Any = None
        self._down_until = 0.0  # monotonic time before which Redis is not asked again
        if settings.redis_url:
            self._redis = aioredis.Redis.from_url(
                settings.redis_url, socket_timeout=1, socket_connect_timeout=1
            )
            self._script = self._redis.register_script(_RESERVE)

    def _key(self, key: str) -> str:
        return f"{self._prefix}:{key}"

    def _shared(self) -> bool:
        """Whether to ask Redis now (configured, and not failed in the last moment)."""
        return self._redis is not None and time.monotonic() >= self._down_until

    def _unavailable(self, exc: Exception, what: str) -> None:
        self._down_until = time.monotonic() + REDIS_RETRY_SECONDS
        log.warning(
            "%s throttle: Redis unavailable (%s); %s, counting in this process only",
            self._prefix,
            type(exc).__name__,
            what,
        )

    async def _redis_wait(self, limits: list[Limit], member: str, now: float, add: bool) -> float:
        """The wait Redis's shared entries impose (adding member under every key when 0)."""
        if not add:
            wait = 0.0
            for limit in limits:
                key = self._key(limit.key)
                await self._redis.zremrangebyscore(key, "-inf", now - self._window)
                scores = [s for _, s in await self._redis.zrange(key, 0, -1, withscores=True)]
                wait = max(wait, _wait(scores, limit, now, self._window))
            return wait
        args: list[Any] = [now, self._window, member, BACKOFF_CAP, MAX_ENTRIES_PER_KEY]
        for limit in limits:
            args += [limit.limit, 1 if limit.backoff else 0]
        keys = [self._key(limit.key) for limit in limits]
        return float(await self._script(keys=keys, args=args))

    async def _reserve(self, limits: list[Limit], add: bool) -> tuple[str | None, int | None]:
        member = secrets.token_hex(8)
        now = time.time()
        # No await before this process's check and count: one event loop makes it atomic.
        wait = self._memory.reserve(limits, member, now, add)
        if wait <= 0 and self._shared():
            try:
                wait = await self._redis_wait(limits, member, now, add)
            except Exception as exc:  # noqa: BLE001 - a guard must never take the service down
                self._unavailable(exc, "this process's count decides")
            if wait > 0 and add:  # refused by the shared count: it does not count here either
                self._memory.release([limit.key for limit in limits], member)
        if wait > 0:
            return None, max(1, math.ceil(wait))
        return (member if add else None), None

    async def reserve(self, limits: list[Limit]) -> tuple[str | None, int | None]:
        """Count one attempt against every limit unless one is reached: (reservation, None),
        or (None, seconds to wait) and nothing counted."""
        return await self._reserve(limits, add=True)

    async def release(self, reservation: str | None, keys: list[str]) -> None:
        """Give a reservation back: the attempt it counted no longer counts under keys."""
        if reservation is None:
            return
        self._memory.release(keys, reservation)
        if self._shared():
            try:
                for key in keys:
                    await self._redis.zrem(self._key(key), reservation)
            except Exception as exc:  # noqa: BLE001
                self._unavailable(exc, "not released there")

    async def blocked(self, limits: list[Limit]) -> int | None:
        """Seconds to wait if any limit is reached, else None (nothing counted)."""
        _, wait = await self._reserve(limits, add=False)
        return wait

    async def failed(self, limits: list[Limit]) -> None:
        """Count one failure against each limit, reached or not."""
        now = time.time()
        member = secrets.token_hex(8)
        unlimited = [Limit(limit.key, MAX_ENTRIES_PER_KEY + 1) for limit in limits]
        self._memory.reserve(unlimited, member, now, add=True)
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
