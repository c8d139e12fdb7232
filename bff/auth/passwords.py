"""Password hashing with argon2id, run off the event loop."""

from __future__ import annotations

import asyncio
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
_HASHING = asyncio.Semaphore(HASHING_AT_ONCE)
# Sign-in checks waiting for a slot, at most: beyond it they are refused, not queued, so a
# burst of wrong passwords cannot make a real sign-in wait behind it for seconds.
MAX_WAITING_CHECKS = 6


class PasswordChecksBusy(Exception):
    """Too many sign-in password checks are waiting already."""


class _Checks:
    waiting = 0  # checks of this process started and not finished (running or queued)


async def _in_thread(func: Callable[..., T], *args: str) -> T:
    async with _HASHING:
        return await asyncio.to_thread(func, *args)


async def _checked(func: Callable[..., T], *args: str, queue: bool) -> T:
    """Run a sign-in check, or raise PasswordChecksBusy when the queue is full (`queue`: wait
    in any case)."""
    if not queue and _Checks.waiting >= HASHING_AT_ONCE + MAX_WAITING_CHECKS:
        raise PasswordChecksBusy
    _Checks.waiting += 1
    try:
        return await _in_thread(func, *args)
    finally:
        _Checks.waiting -= 1


async def hash_password(password: str) -> str:
    """An argon2id hash of password."""
    return await _in_thread(_hasher.hash, password)


def _verify(stored_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher.hash("no such user: compare against something of equal cost")


async def verify_password(stored_hash: str | None, password: str, *, queue: bool = False) -> bool:
    """Check password; with no stored hash, spend the same time and fail. Raises
    PasswordChecksBusy rather than queue behind too many others, unless `queue`."""
    if stored_hash is None:
        await _checked(_verify, _dummy_hash(), password, queue=queue)
        return False
    return await _checked(_verify, stored_hash, password, queue=queue)
