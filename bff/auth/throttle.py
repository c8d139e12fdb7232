"""Brute-force protection for sign-in that an attacker can neither race nor turn against others.

Every attempt is counted before its password is checked (reserved, and given back when the
password is right), against three limits per window (BFF_LOGIN_WINDOW_SECONDS):
- per (username, address) pair, BFF_LOGIN_MAX_FAILURES: the primary limit, so an attacker
  elsewhere cannot lock a clinician out;
- per address, BFF_LOGIN_MAX_FAILURES_PER_ADDRESS: guessing many usernames from one place;
- per username, BFF_LOGIN_MAX_FAILURES_PER_USERNAME, much higher: guessing from many addresses.
  Beyond it attempts are slowed (each waits twice as long after the previous one, at most a
  minute), never blocked.
An account that signed in from the address before (within 30 days: "known") is held by the
pair limit alone: neither the address's limit (a hospital's staff share one outgoing address,
and an attacker there spraying other usernames must not lock them out) nor the username's
back-off (an attacker elsewhere must not slow them) stops it. Its failures still count against
the address, so guessing at known accounts brings the address's limit nearer for the others.
The counts are the database's (a durable `FailureCounter`, bff/throttle.py): every worker of
every instance shares them, whether Redis is up, down, or came back empty.
Besides, this process checks at most MAX_CHECKING_PER_USERNAME passwords of one username and
MAX_CHECKING_PER_ADDRESS of one address at once (known accounts: the first bound only), and
password checks wait in a bounded queue (`bff/auth/passwords.py`): a burst is refused at once
(429 with Retry-After) instead of queueing in front of everyone else's sign-ins; from an address
the user signed in from before a check always queues, ahead of the others.

Every key holds the username in one spelling (`normal_username`): `Chief`, `CHIEF`, ` chief`
and the same in full-width letters are counted as one username, the one sign-in looks up.

Single sign-on (bff/oidc/service.py) uses the same rules with the browser in the username's
place until the provider's token names a subject (the browser is the one its `/start` cookie
names), then the subject, neither held by nor counted against the address (`by_address=False`):
a code the provider refuses guessed nothing anyone else holds, so it spends its browser's budget
alone. Its public endpoints are limited per address (`sso_request`,
BFF_OIDC_REQUESTS_PER_MINUTE), except for a browser that signed in from that address before,
counted on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bff.auth.passwords import PasswordChecksBusy
from bff.errors import ApiError
from bff.naming import username_spelling
from bff.throttle import FailureCounter, Limit, wait_text
from config.settings import Settings

MAX_CHECKING_PER_USERNAME = 2
MAX_CHECKING_PER_ADDRESS = 4
BUSY = "Too many sign-in attempts at once. Please try again in a moment."
SSO_WINDOW_SECONDS = 60  # BFF_OIDC_REQUESTS_PER_MINUTE counts requests in this window


def normal_username(username: str) -> str:
    """The one spelling of a username as typed at sign-in (naming.py's: NFKC, case-folded,
    without the spaces around it; stored usernames are lower-case ASCII, left as they are)."""
    return username_spelling(username)


def _too_many(wait: int) -> ApiError:
    return ApiError(
        429,
        f"Too many failed sign-in attempts. Please try again in {wait_text(wait)}.",
        {"Retry-After": str(wait)},
    )


class Attempt:
    """One sign-in attempt, counted until `succeeded` gives it back."""

    def __init__(self, throttle: LoginThrottle, username: str, address: str) -> None:
        self._throttle = throttle
        self.username = username
        self.address = address
        self.reservation: str | None = None
        self.known = False  # the user signed in from this address before

    async def succeeded(self) -> None:
        """The password was right: the attempt does not count, the pair starts afresh and the
        address is remembered as the user's."""
        await self._throttle.release(self)
        await self._throttle.counter.clear(self._throttle.pair_key(self.username, self.address))
        await self._throttle.counter.mark(self._throttle.known_key(self.username, self.address))


class LoginThrottle:
    """Reserves each sign-in attempt, refusing with 429 while a limit is reached."""

    def __init__(self, settings: Settings) -> None:
        # Counted in the database: every process shares it, with Redis or without.
        self.counter = FailureCounter(
            settings, "bff-login", settings.login_window_seconds, durable=True
        )
        self._per_pair = settings.login_max_failures
        self._per_address = settings.login_max_failures_per_address
        self._per_username = settings.login_max_failures_per_username
        self._checking_username: Counter[str] = Counter()
        self._checking_address: Counter[str] = Counter()
        self.sso_requests = FailureCounter(settings, "bff-sso", SSO_WINDOW_SECONDS)
        self._sso_per_address = settings.oidc_requests_per_minute

    @staticmethod
    def pair_key(username: str, address: str) -> str:
        """The key of one username from one address."""
        return f"pair:{username}\n{address}"

    @staticmethod
    def known_key(username: str, address: str) -> str:
        """The mark of an address the user signed in from."""
        return f"known:{username}\n{address}"

    @staticmethod
    def address_key(address: str) -> str:
        """The key of every attempt from one address."""
        return "addr:" + address

    def _limits(
        self, username: str, address: str, known: bool, by_address: bool = True
    ) -> list[Limit]:
        limits = [Limit(self.pair_key(username, address), self._per_pair)]
        if not known:
            if by_address:
                limits.append(Limit(self.address_key(address), self._per_address))
            limits.append(Limit("user:" + username, self._per_username, backoff=True))
        return limits

    async def release(self, attempt: Attempt) -> None:
        """Give an attempt's reservation back (it is not counted as a failure)."""
        keys = [limit.key for limit in self._limits(attempt.username, attempt.address, False)]
        await self.counter.release(attempt.reservation, keys)
        attempt.reservation = None

    @asynccontextmanager
    async def attempt(
        self, username: str, address: str, *, by_address: bool = True
    ) -> AsyncIterator[Attempt]:
        """Reserve one attempt (429 when a limit is reached or too many are being checked);
        the body checks the password and calls `succeeded` when it was right.

        `by_address=False`: neither held by the address's limit nor counted against it (single
        sign-on's attempts: a browser's, whose code the provider checks, and a subject's, once
        the provider vouched for it)."""
        username = normal_username(username)
        known = await self.counter.marked(self.known_key(username, address))
        held = by_address and not known  # held by the address's limit and bounds
        # From here to the counts below there is no await: the bounds cannot be raced.
        if self._checking_username[username] >= MAX_CHECKING_PER_USERNAME or (
            held and self._checking_address[address] >= MAX_CHECKING_PER_ADDRESS
        ):
            raise ApiError(429, BUSY, {"Retry-After": "1"})
        checking = [(self._checking_username, username)]
        if held:
            checking.append((self._checking_address, address))
        for counter, key in checking:
            counter[key] += 1
        try:
            attempt = Attempt(self, username, address)
            attempt.known = known
            attempt.reservation, wait = await self.counter.reserve(
                self._limits(username, address, known, by_address)
            )
            if wait is not None:
                raise _too_many(wait)
            try:
                yield attempt
            except PasswordChecksBusy:
                await self.release(attempt)  # never checked: it does not count
                raise ApiError(429, BUSY, {"Retry-After": "1"}) from None
            finally:
                # A failure the address's limit did not hold back (a known account's) still
                # counts against the address.
                failed = attempt.reservation is not None and known
                if failed and by_address:
                    await self.counter.failed([Limit(self.address_key(address), 1)])
        finally:
            for counter, key in checking:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]

    async def sso_request(self, address: str, browser: str | None = None) -> None:
        """Count one request to a public single sign-on endpoint from address, good or bad
        (each does the database's or the provider's work for anyone who asks): 429 with
        Retry-After beyond BFF_OIDC_REQUESTS_PER_MINUTE in a minute. A browser known at the
        address (`browser`: its attempts' key, as single sign-on's `attempt` counts them; it
        signed in from there before) is counted on its own and not against the address, so
        requests from anyone else there never lock it out."""
        key = self.address_key(address)
        if browser is not None:
            browser = normal_username(browser)
            if await self.counter.marked(self.known_key(browser, address)):
                key = self.pair_key(browser, address)
        _, wait = await self.sso_requests.reserve([Limit(key, self._sso_per_address)])
        if wait is not None:
            raise ApiError(
                429,
                "Too many single sign-on requests from this network. "
                f"Please try again in {wait_text(wait)}.",
                {"Retry-After": str(wait)},
            )

    async def aclose(self) -> None:
        """Release the counters' connections."""
        await self.counter.aclose()
        await self.sso_requests.aclose()
