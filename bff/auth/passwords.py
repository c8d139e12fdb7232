"""Password hashing with argon2id, run off the event loop.

Passwords are hashed in their NFKC form (`normalized`): the same password typed on another
keyboard or pasted from another program matches. Hashes set before that were of the password
as typed, so a check also tries the typed form when it differs (only then: one hash otherwise).
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

T = TypeVar("T")

_hasher = PasswordHasher()  # argon2id with the library's recommended parameters
# Each hash takes about 64MB and most of a core for ~0.2 s: a burst of sign-ins queues here
# instead of multiplying memory and starving every other request of CPU.
HASHING_AT_ONCE = 2
# Sign-in checks waiting for a slot, at most: beyond it they are refused, not queued, so a
# burst of wrong passwords cannot make a real sign-in wait behind it for seconds.
MAX_WAITING_CHECKS = 6


class PasswordChecksBusy(Exception):
    """Too many sign-in password checks are waiting already."""


class _Slots:
    """HASHING_AT_ONCE hashing slots, handed first to waiters marked `first` (sign-ins from an
    address the user signed in from before), then in order of arrival."""

    def __init__(self, size: int) -> None:
        self.free = size
        self.waiting = 0  # sign-in checks started and not finished (running or queued)
        self._queues: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())

    async def acquire(self, first: bool) -> None:
        if self.free > 0 and not any(self._queues):
            self.free -= 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues[0 if first else 1].append(granted)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self.release()  # handed a slot just as it was cancelled: pass it on
            raise

    def release(self) -> None:
        for queue in self._queues:
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)  # the slot goes straight to the waiter
                    return
        self.free += 1


_SLOTS = _Slots(HASHING_AT_ONCE)


async def _in_thread(func: Callable[..., T], *args: str, first: bool = False) -> T:
    await _SLOTS.acquire(first)
    try:
        return await asyncio.to_thread(func, *args)
    finally:
        _SLOTS.release()


async def _checked(func: Callable[..., T], *args: str, queue: bool) -> T:
    """Run a sign-in check, or raise PasswordChecksBusy when the queue is full (`queue`: wait
    in any case, ahead of the others)."""
    if not queue and _SLOTS.waiting >= HASHING_AT_ONCE + MAX_WAITING_CHECKS:
        raise PasswordChecksBusy
    _SLOTS.waiting += 1
    try:
        return await _in_thread(func, *args, first=queue)
    finally:
        _SLOTS.waiting -= 1


def normalized(password: str) -> str:
    """The form of a password that is counted, checked and hashed (NFKC)."""
    return unicodedata.normalize("NFKC", password)


async def hash_password(password: str) -> str:
    """An argon2id hash of password's NFKC form. New passwords: `password_rule.hash_new_password`
    (which checks the rule first)."""
    return await _in_thread(_hasher.hash, normalized(password))


def _verify(stored_hash: str, password: str) -> bool:
    """Whether password's NFKC form, or (a hash from before normalisation) the password as
    typed, matches stored_hash."""
    for form in dict.fromkeys((normalized(password), password)):
        try:
            if _hasher.verify(stored_hash, form):
                return True
        except (VerificationError, InvalidHashError):
            pass
    return False


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher.hash("no such user: compare against something of equal cost")


async def verify_password(stored_hash: str | None, password: str, *, queue: bool = False) -> bool:
    """Check password; with no stored hash, spend the same time and fail. Raises
    PasswordChecksBusy rather than queue behind too many others, unless `queue` (then it
    waits, ahead of the checks without it)."""
    if stored_hash is None:
        await _checked(_verify, _dummy_hash(), password, queue=queue)
        return False
    return await _checked(_verify, stored_hash, password, queue=queue)
