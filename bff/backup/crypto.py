"""A snapshot's encryption and authentication.

Encryption: every part (the database tables, the object list) and every object is an age file
(https://age-encryption.org/v1, through `pyrage`) to one X25519 recipient, BFF_BACKUP_RECIPIENT.
age is a kept format (the `age`/`rage` command lines open a snapshot's files too) whose payload
is ChaCha20-Poly1305 in 64 KiB chunks, each authenticated, the last one marked: a changed,
reordered or cut file does not decrypt. Writing needs only the public recipient, so the server
that backs up cannot read its backups when the identity (the private key) is kept elsewhere; a
restore is given it (`--identity FILE`, BFF_BACKUP_IDENTITY_FILE). Unset, a generated identity in
var/backup_identity serves both (the zero-configuration default; it then lives on the server).
pyrage's streaming calls take blocking file objects: each runs in a thread of its own, fed and
drained through small queues, so a part or object is never whole in memory.

Authentication: anyone may encrypt to a public key, so age alone proves nothing about who wrote
a file. The manifest (the snapshot's id and time, the recipient, and the SHA-256 and size of
every part's encrypted bytes; the object list, a part, holds every object's SHA-256) is sealed
with HMAC-SHA256 under BFF_BACKUP_KEY, a secret the backup location does not hold. So editing a
part, swapping in a part of another snapshot (its bytes differ: age's file key is random) or a
manifest written by another deployment (another key) are all refused before anything is written.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyrage
from pyrage import x25519

from config.settings import Settings

CHUNK = 64 * 1024  # what the thread hands back at a time (age's own chunk size)
QUEUE = 4  # chunks waiting in each direction, at most
# A stream that ends within this many bytes is encrypted or decrypted in one call, in line: most
# stored objects are small, and a thread per object costs more than the cipher (the memory this
# holds is bounded by it, times the copies running at once).
SMALL = 256 * 1024


class CipherError(Exception):
    """A stream could not be encrypted or decrypted (the message says why)."""


def key_id(mac_key: bytes) -> str:
    """A short public name of a manifest key (to tell "another key" from "changed")."""
    return hmac.new(mac_key, b"bff-backup key id", hashlib.sha256).hexdigest()[:16]


def seal(manifest: dict[str, Any], mac_key: bytes) -> dict[str, Any]:
    """The manifest with its HMAC-SHA256 (over its canonical JSON) and the key's id."""
    return {
        "manifest": manifest,
        "hmacSha256": hmac.new(mac_key, canonical(manifest), hashlib.sha256).hexdigest(),
        "keyId": key_id(mac_key),
    }


def authentic(sealed: dict[str, Any], mac_key: bytes) -> bool:
    """Whether a sealed manifest's HMAC is right under mac_key."""
    expected = hmac.new(mac_key, canonical(sealed["manifest"]), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, str(sealed["hmacSha256"]))


def canonical(manifest: dict[str, Any]) -> bytes:
    """The manifest's one byte form (sorted keys, no spaces)."""
    return json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()


def recipient(settings: Settings) -> x25519.Recipient:
    """The recipient a backup encrypts to (BFF_BACKUP_RECIPIENT, else the generated one's)."""
    return x25519.Recipient.from_str(settings.backup_recipient_text())


def load_identity(path: Path) -> x25519.Identity:
    """The age identity in an identity file (as `age-keygen` writes it: comments allowed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CipherError(f"Cannot read the backup identity {path}: {exc.strerror}.") from None
    except UnicodeDecodeError:  # another file given by mistake (the snapshot's, a binary key)
        raise CipherError(f"{path} holds no age identity: it is not text.") from None
    keys = [line.strip() for line in text.splitlines() if line.startswith("AGE-SECRET-KEY-")]
    if len(keys) != 1:
        raise CipherError(f"{path} holds no age identity (one AGE-SECRET-KEY-1... line).")
    try:
        return x25519.Identity.from_str(keys[0])
    except Exception:  # noqa: BLE001 - pyrage's IdentityError
        raise CipherError(f"{path} holds no valid age identity.") from None


def encrypt(chunks: AsyncIterable[bytes], to: x25519.Recipient) -> AsyncIterator[bytes]:
    """The age encryption of the chunks to one recipient, as it streams."""
    return _small_or_streamed(
        chunks,
        lambda data: pyrage.encrypt(data, [to]),
        lambda r, w: pyrage.encrypt_io(r, w, [to]),
    )


def decrypt(chunks: AsyncIterable[bytes], identity: x25519.Identity) -> AsyncIterator[bytes]:
    """The plaintext of an age stream, as it streams; CipherError if a chunk does not
    authenticate (changed, cut short) or the file is for another recipient."""
    return _small_or_streamed(
        chunks,
        lambda data: pyrage.decrypt(data, [identity]),
        lambda r, w: pyrage.decrypt_io(r, w, [identity]),
    )


async def _small_or_streamed(
    chunks: AsyncIterable[bytes],
    whole: Callable[[bytes], bytes],
    work: Callable[[_Reader, _Writer], None],
) -> AsyncIterator[bytes]:
    """whole(data) of a stream that ends within SMALL bytes, else work's output streamed
    through a thread (_through_thread)."""
    source = aiter(chunks)
    head: list[bytes] = []
    size = 0
    async for chunk in source:
        head.append(chunk)
        size += len(chunk)
        if size > SMALL:
            break
    else:
        try:
            result = whole(b"".join(head))
        except Exception as exc:  # noqa: BLE001 - pyrage's EncryptError / DecryptError
            raise CipherError(str(exc) or type(exc).__name__) from None
        if result:
            yield result
        return

    async def rest() -> AsyncIterator[bytes]:
        for chunk in head:
            yield chunk
        async for chunk in source:
            yield chunk

    async for chunk in _through_thread(rest(), work):
        yield chunk


class _Stopped(Exception):
    """The async side went away: the thread gives up."""


@dataclass
class _Bridge:
    """The thread's side of the two queues (each call waits on the event loop)."""

    loop: asyncio.AbstractEventLoop
    inbox: asyncio.Queue[bytes | BaseException | None]
    outbox: asyncio.Queue[bytes | BaseException | None]
    stop: threading.Event

    def call(self, coroutine: Any) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        while True:
            try:
                return future.result(timeout=0.05)
            except FutureTimeout:
                if self.stop.is_set() or self.loop.is_closed():
                    future.cancel()
                    raise _Stopped from None


class _Reader:
    """A blocking file object reading the chunks the event loop puts in the inbox."""

    def __init__(self, bridge: _Bridge) -> None:
        self.bridge = bridge
        self.chunk = memoryview(b"")
        self.at = 0
        self.ended = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while self.at >= len(self.chunk) and not self.ended:
            data = self.bridge.call(self.bridge.inbox.get())
            if isinstance(data, BaseException):
                raise OSError("the stream to encrypt or decrypt failed")
            if data is None:
                self.ended = True
            else:
                self.chunk, self.at = memoryview(data), 0
        end = len(self.chunk) if size is None or size < 0 else self.at + size
        data = bytes(self.chunk[self.at : end])
        self.at += len(data)
        return data


class _Writer:
    """A blocking file object handing CHUNK-sized pieces to the event loop's outbox."""

    def __init__(self, bridge: _Bridge) -> None:
        self.bridge = bridge
        self.buffer = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:
        self.buffer += data
        if len(self.buffer) >= CHUNK:
            self.flush()
        return len(data)

    def flush(self) -> None:
        if self.buffer:
            self.bridge.call(self.bridge.outbox.put(bytes(self.buffer)))
            self.buffer.clear()


async def _through_thread(
    chunks: AsyncIterable[bytes], work: Callable[[_Reader, _Writer], None]
) -> AsyncIterator[bytes]:
    """Run work(reader, writer) in a thread of its own: the chunks go in through reader, what it
    writes comes out, QUEUE chunks at most waiting either way."""
    loop = asyncio.get_running_loop()
    bridge = _Bridge(loop, asyncio.Queue(QUEUE), asyncio.Queue(QUEUE), threading.Event())
    failed: list[BaseException] = []

    async def feed() -> None:
        try:
            async for chunk in chunks:
                if chunk:
                    await bridge.inbox.put(bytes(chunk))
        except Exception as exc:  # noqa: BLE001 - raised below, where the stream is read
            failed.append(exc)
            await bridge.inbox.put(exc)  # the thread's read fails, and so its work
            return
        await bridge.inbox.put(None)

    def run() -> None:
        writer = _Writer(bridge)
        try:
            work(_Reader(bridge), writer)
            writer.flush()
            bridge.call(bridge.outbox.put(None))
        except _Stopped:
            return
        except Exception as exc:  # noqa: BLE001 - handed to the event loop
            try:
                bridge.call(bridge.outbox.put(exc))
            except _Stopped:
                return

    feeder = asyncio.create_task(feed())
    thread = threading.Thread(target=run, name="bff-backup-age", daemon=True)
    thread.start()
    try:
        while True:
            item = await bridge.outbox.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                if failed:
                    raise failed[0]
                raise CipherError(str(item) or type(item).__name__)
            yield item
        await feeder
        if failed:
            raise failed[0]
    finally:
        bridge.stop.set()
        feeder.cancel()
        await asyncio.gather(feeder, return_exceptions=True)
        for _ in range(500):  # it notices the stop within 0.05 s: wait for it (5 s at most)
            if not thread.is_alive():
                break
            await asyncio.sleep(0.01)
