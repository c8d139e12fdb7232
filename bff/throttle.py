"""Counting failures in a moving window, shared by every process through Redis when configured.

One mechanism for every brute-force guard (sign-in, SmartToken verification). Counters live in
Redis when BFF_REDIS_URL is set, in-process otherwise. If Redis is unreachable the guards fail
open and log it: people can still sign in and responders can still open a token.
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from config.settings import Settings

log = logging.getLogger(__name__)


class FailureCounter:
    """Failures per key within a window; `blocked` says how long to wait once over a limit."""

    def __init__(self, settings: Settings, prefix: str, window_seconds: int) -> None:
        storage: Storage
        if settings.redis_url:
            storage = RedisStorage(
                "async+" + settings.redis_url,
                implementation="redispy",
                key_prefix=prefix,
                socket_timeout=1,
                socket_connect_timeout=1,
            )
        else:
            storage = MemoryStorage()
        self._limiter = MovingWindowRateLimiter(storage)
        self._window = window_seconds
        self._prefix = prefix

    def _item(self, limit: int) -> RateLimitItemPerSecond:
        return RateLimitItemPerSecond(limit, self._window)

    async def blocked(self, keys: list[tuple[str, int]]) -> int | None:
        """Seconds to wait if any (key, limit) is over its limit, else None."""
        try:
            for key, limit in keys:
                item = self._item(limit)
                if not await self._limiter.test(item, key):
                    stats = await self._limiter.get_window_stats(item, key)
                    return max(1, math.ceil(stats.reset_time - time.time()))
        except Exception as exc:  # noqa: BLE001 - a guard must never take the service down
            log.warning("%s throttle unavailable (%s); allowing", self._prefix, type(exc).__name__)
        return None

    async def failed(self, keys: list[tuple[str, int]]) -> None:
        """Count one failure against each (key, limit)."""
        try:
            for key, limit in keys:
                await self._limiter.hit(self._item(limit), key)
        except Exception as exc:  # noqa: BLE001
            log.warning(
                "%s throttle unavailable (%s); not counted", self._prefix, type(exc).__name__
            )

    async def clear(self, key: str, limit: int) -> None:
        """Forget a key's failures."""
        try:
            await self._limiter.clear(self._item(limit), key)
        except Exception as exc:  # noqa: BLE001
            log.warning("%s throttle unavailable (%s)", self._prefix, type(exc).__name__)


def minutes_text(seconds: int) -> str:
    """'1 minute', '3 minutes'."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
