"""The streaming age encryption of snapshot parts and objects (bff/backup/crypto.py): both the
in-line path of small streams and the threaded one of large streams round-trip, and a changed,
cut or foreign stream, or a failing source, is an error, never output taken as good."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator

import pyrage
import pytest
from pyrage import x25519

from bff.backup.crypto import SMALL, CipherError, decrypt, encrypt

IDENTITY = x25519.Identity.generate()
RECIPIENT = IDENTITY.to_public()


async def _chunks(data: bytes, step: int = 70_000) -> AsyncIterator[bytes]:
    for at in range(0, len(data), step):
        yield data[at : at + step]


async def _all(chunks: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in chunks])


@pytest.mark.parametrize("size", [0, 1000, SMALL, SMALL + 1, 3 * 2**20 + 17])
async def test_round_trip_in_the_age_format(size: int) -> None:
    data = os.urandom(size)
    sealed = await _all(encrypt(_chunks(data), RECIPIENT))
    assert pyrage.decrypt(sealed, [IDENTITY]) == data  # a kept format: age opens it
    assert await _all(decrypt(_chunks(sealed), IDENTITY)) == data
    assert await _all(decrypt(_chunks(pyrage.encrypt(data, [RECIPIENT])), IDENTITY)) == data


@pytest.mark.parametrize("size", [1000, 3 * 2**20])
async def test_changed_cut_or_foreign_streams_do_not_decrypt(size: int) -> None:
    sealed = await _all(encrypt(_chunks(os.urandom(size)), RECIPIENT))
    changed = bytearray(sealed)
    changed[len(sealed) // 2] ^= 1
    for bad in (bytes(changed), sealed[:-1], sealed[: len(sealed) // 2]):
        with pytest.raises(CipherError):
            await _all(decrypt(_chunks(bad), IDENTITY))
    with pytest.raises(CipherError, match="No matching keys"):
        await _all(decrypt(_chunks(sealed), x25519.Identity.generate()))


async def test_a_failing_source_fails_the_stream() -> None:
    async def breaks() -> AsyncIterator[bytes]:
        yield os.urandom(SMALL + 1)
        raise OSError("the disk went away")

    with pytest.raises(OSError, match="the disk went away"):
        await _all(encrypt(breaks(), RECIPIENT))


async def test_a_stream_left_early_ends_its_thread() -> None:
    before = threading.active_count()
    sealed = await _all(encrypt(_chunks(os.urandom(4 * 2**20)), RECIPIENT))
    streams = [decrypt(_chunks(sealed), IDENTITY) for _ in range(8)]
    for stream in streams:
        assert await anext(stream)
    for stream in streams:
        await stream.aclose()
    for _ in range(100):  # bounded: each notices within 0.05 s
        if threading.active_count() <= before:
            break
        await asyncio.sleep(0.05)
    assert threading.active_count() <= before
