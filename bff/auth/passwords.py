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
_HASHING = asyncio.Semaphore(2)


async def _in_thread(func: Callable[..., T], *args: str) -> T:
    async with _HASHING:
        return await asyncio.to_thread(func, *args)


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


async def verify_password(stored_hash: str | None, password: str) -> bool:
    """Check password; with no stored hash, spend the same time and fail."""
    if stored_hash is None:
        await _in_thread(_verify, _dummy_hash(), password)
        return False
    return await _in_thread(_verify, stored_hash, password)
