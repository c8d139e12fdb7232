"""Brute-force protection for sign-in: failed attempts counted per username and per address."""

from __future__ import annotations

from bff.errors import ApiError
from bff.throttle import FailureCounter, minutes_text
from config.settings import Settings


class LoginThrottle:
    """Counts failed sign-ins and refuses further attempts with 429 while over the limit."""

    def __init__(self, settings: Settings) -> None:
        self._counter = FailureCounter(settings, "bff-login", settings.login_window_seconds)
        self._per_user = settings.login_max_failures
        self._per_address = settings.login_max_failures_per_address

    def _keys(self, username: str, address: str) -> list[tuple[str, int]]:
        return [
            ("user:" + username.lower(), self._per_user),
            ("addr:" + address, self._per_address),
        ]

    async def check(self, username: str, address: str) -> None:
        """Raise 429 with Retry-After while either counter is over its limit."""
        wait = await self._counter.blocked(self._keys(username, address))
        if wait is not None:
            raise ApiError(
                429,
                f"Too many failed sign-in attempts. Please try again in {minutes_text(wait)}.",
                {"Retry-After": str(wait)},
            )

    async def failed(self, username: str, address: str) -> None:
        """Count one failed attempt."""
        await self._counter.failed(self._keys(username, address))

    async def succeeded(self, username: str) -> None:
        """Forget the username's failures after a successful sign-in."""
        await self._counter.clear("user:" + username.lower(), self._per_user)
