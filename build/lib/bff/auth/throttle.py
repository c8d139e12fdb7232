"""Brute-force protection for sign-in: failed attempts counted per username and per address.

Counters live in Redis when BFF_REDIS_URL is set (shared by every process), in-process otherwise.
If Redis is unreachable the check fails open and logs it: sign-in keeps working.
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from bff.errors import ApiError
from config.settings import Settings

log = logging.getLogger(__name__)


class LoginThrottle:
    """Counts failed sign-ins and refuses further attempts with 429 while over the limit."""

    def __init__(self, settings: Settings) -> None:
        window = settings.login_window_seconds
        self._per_user = RateLimitItemPerSecond(settings.login_max_failures, window)
        self._per_address = RateLimitItemPerSecond(settings.login_max_failures_per_address, window)
        storage: Storage
        if settings.redis_url:
            storage = RedisStorage(
                "async+" + settings.redis_url,
                implementation="redispy",
                key_prefix="bff-login",
                socket_timeout=1,
                socket_connect_timeout=1,
            )
        else:
            storage = MemoryStorage()
        self._limiter = MovingWindowRateLimiter(storage)

    def _keys(self, username: str, address: str) -> list[tuple[RateLimitItemPerSecond, str]]:
        return [(self._per_user, "user:" + username.lower()), (self._per_address, "addr:" + address)]

    async def check(self, username: str, address: str) -> None:
        """Raise 429 with Retry-After while either counter is over its limit."""
        try:
            for item, key in self._keys(username, address):
                if not await self._limiter.test(item, key):
                    stats = await self._limiter.get_window_stats(item, key)
                    wait = max(1, math.ceil(stats.reset_time - time.time()))
                    minutes = max(1, math.ceil(wait / 60))
                    raise ApiError(
                        429,
                        "Too many failed sign-in attempts. "
                        f"Please try again in {minutes} minute{'s' if minutes != 1 else ''}.",
                        {"Retry-After": str(wait)},
                    )
        except ApiError:
            raise
        except Exception as exc:  # noqa: BLE001 - the throttle must never block sign-in
            log.warning("Login throttle unavailable (%s); allowing the attempt", type(exc).__name__)

    async def failed(self, username: str, address: str) -> None:
        """Count one failed attempt."""
        try:
            for item, key in self._keys(username, address):
                await self._limiter.hit(item, key)
        except Exception as exc:  # noqa: BLE001
            log.warning("Login throttle unavailable (%s); not counted", type(exc).__name__)

    async def succeeded(self, username: str) -> None:
        """Forget the username's failures after a successful sign-in."""
        try:
            await self._limiter.clear(self._per_user, "user:" + username.lower())
        except Exception as exc:  # noqa: BLE001
            log.warning("Login throttle unavailable (%s)", type(exc).__name__)
