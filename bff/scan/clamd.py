"""A small asyncio client of clamd's INSTREAM protocol, over a Unix socket or TCP (BFF_CLAMD:
`unix:/run/clamav/clamd.ctl` or `tcp://host:port`).

Why not aioclamd (the library issue 49 names): aioclamd 1.1 speaks TCP only (no Unix socket,
clamd's usual and safest address), and its INSTREAM reads a synchronous file object 1 KB at a
time through `asyncio.to_thread`: it cannot take an upload's chunks as they arrive, so the file
would have to be whole (in memory or written out and read again) before the scan could start,
and each KB would cost a thread hop. Here a content's chunks, as storage streams them, are sent
on to clamd as they come (`Instream.send`, bff/scan/service.py `scan_content`), then the answer
is waited for (`Instream.answer`).

The protocol (clamd(8)): `zINSTREAM\\0`, then chunks each preceded by its length as 4 bytes
big-endian (here 64 KiB each: `CHUNK`), a zero
length to end, and one reply up to `\\0`: `stream: OK`, `stream: <Signature> FOUND`, or
`<message> ERROR` (`INSTREAM size limit exceeded. ERROR` past StreamMaxLength, after which clamd
closes the connection). `zPING\\0` answers `PONG`, `zVERSION\\0` the engine and database version.
Every failure to reach clamd or to get an answer in time is `Unavailable`; a finding is returned.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass
from urllib.parse import urlsplit

# Each INSTREAM chunk: the upload's chunks (of any size) are passed on in chunks of exactly
# this many bytes, the rest held for the next (less than 64 KiB held; the last one shorter).
CHUNK = 64 * 1024
_LENGTH = struct.pack(">I", CHUNK)
REPLY_LIMIT = 4096  # a longer reply is not clamd's
UNOFFICIAL = ".UNOFFICIAL"  # clamd's suffix for a signature not from the official database


class Unavailable(Exception):
    """clamd could not be reached, did not answer in time, refused the stream (too large) or
    answered an error: the content is not known to be clean."""

    def __init__(self, reason: str, *, too_large: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_large = too_large


@dataclass(frozen=True)
class Result:
    """clamd's verdict on one stream: signature None when nothing was found."""

    signature: str | None

    @property
    def infected(self) -> bool:
        return self.signature is not None


# What clamd (with AlertExceedsMax yes) answers for content one of its limits kept it from
# scanning whole; without that option it answers OK for such content: docs/operations.md.
LIMITS_EXCEEDED = "Heuristics.Limits.Exceeded"


def parse_reply(reply: bytes) -> Result:
    """A Result from INSTREAM's reply (without the trailing \\0); Unavailable for an error."""
    text = reply.decode("utf-8", "replace").strip()
    if text.endswith("ERROR"):
        raise Unavailable(f"clamd: {text}", too_large="size limit exceeded" in text)
    if text.startswith("stream:"):
        text = text[len("stream:") :].strip()
    if text == "OK":
        return Result(None)
    if text.endswith(" FOUND"):
        signature = text[: -len(" FOUND")].strip()
        if signature.startswith(LIMITS_EXCEEDED):
            # A limit of clamd's (MaxFileSize, MaxScanSize, MaxRecursion...) stopped the scan
            # before the end (AlertExceedsMax): not a finding, and not a pass either.
            raise Unavailable(f"clamd did not scan all of it: {signature[:100]}", too_large=True)
        return Result(signature.removesuffix(UNOFFICIAL) or "unknown")
    raise Unavailable(f"clamd answered {text[:100]!r}")


async def _connect(
    address: str, seconds: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    try:
        async with asyncio.timeout(seconds):
            if address.startswith("unix:"):
                return await asyncio.open_unix_connection(address[len("unix:") :])
            parts = urlsplit(address)
            return await asyncio.open_connection(parts.hostname, parts.port)
    except TimeoutError:
        raise Unavailable("clamd did not accept a connection in time") from None
    except OSError as error:
        raise Unavailable(f"clamd cannot be reached ({type(error).__name__})") from None


async def _read_reply(reader: asyncio.StreamReader) -> bytes:
    reply = bytearray()
    while not reply.endswith(b"\0"):
        part = await reader.read(REPLY_LIMIT)
        if not part:
            break
        reply += part
        if len(reply) > REPLY_LIMIT:
            raise Unavailable("clamd's reply is too long")
    if not reply:
        raise Unavailable("clamd closed the connection without an answer")
    return bytes(reply).rstrip(b"\0\n")


async def command(address: str, name: str, seconds: float) -> str:
    """One command's answer (`PING`, `VERSION`); Unavailable when none in time."""
    reader, writer = await _connect(address, seconds)
    try:
        async with asyncio.timeout(seconds):
            writer.write(b"z" + name.encode() + b"\0")
            await writer.drain()
            return (await _read_reply(reader)).decode("utf-8", "replace")
    except TimeoutError:
        raise Unavailable(f"clamd did not answer {name} in time") from None
    except OSError as error:
        raise Unavailable(f"clamd's connection failed ({type(error).__name__})") from None
    finally:
        writer.close()


async def ping(address: str, seconds: float = 2.0) -> bool:
    """Whether clamd answers PING with PONG within seconds."""
    try:
        return await command(address, "PING", seconds) == "PONG"
    except Unavailable:
        return False


class Instream:
    """One INSTREAM scan, fed chunk by chunk as the content passes (`send`), then `answer`.

    A failure while sending (clamd gone, or it refused the stream as too large and closed) is
    kept and raised by `answer`, so the upload itself goes on to its end either way."""

    def __init__(self, address: str, seconds: float) -> None:
        self.address = address
        self.seconds = seconds
        self.sent = 0
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._failure: Unavailable | None = None
        self._pending = bytearray()  # less than one CHUNK, sent with the next

    async def open(self) -> None:
        """Connect and start the stream (Unavailable if clamd cannot be reached in time)."""
        self._reader, self._writer = await _connect(self.address, self.seconds)
        await self._write(b"zINSTREAM\0")

    @property
    def failure(self) -> Unavailable | None:
        """Why the stream cannot be judged, if something already failed."""
        return self._failure

    def fail(self, failure: Unavailable) -> None:
        """Give up the stream (e.g. the content is over the size scanned): `answer` raises."""
        if self._failure is None:
            self._failure = failure
        self.close()

    async def send(self, chunk: bytes) -> None:
        """Pass chunk on to clamd, in INSTREAM chunks of exactly `CHUNK` bytes (the rest kept
        for the next call: less than 64 KiB held); a failure is kept."""
        if self._failure is not None or not chunk:
            return
        self.sent += len(chunk)
        pending = self._pending
        pending += chunk
        if len(pending) < CHUNK:
            return
        whole = len(pending) - len(pending) % CHUNK
        for start in range(0, whole, CHUNK):  # copies: the transport may keep what it is given
            self._writer_write(_LENGTH + pending[start : start + CHUNK])
        del pending[:whole]
        await self._drain()

    async def answer(self) -> Result:
        """End the stream and read clamd's verdict, within the time limit; Unavailable when
        it cannot be had (clamd's own reason, such as its size limit, first)."""
        if self._failure is None:
            if self._pending:
                self._writer_write(struct.pack(">I", len(self._pending)) + self._pending)
                self._pending.clear()
            self._writer_write(b"\0\0\0\0")
            await self._drain()
        reader = self._reader
        if reader is None:
            raise self._failure or Unavailable("the scan was not started")
        try:
            async with asyncio.timeout(self.seconds):
                reply = await _read_reply(reader)
        except TimeoutError:
            raise self._failure or Unavailable("clamd did not answer in time") from None
        except OSError as error:
            failed = Unavailable(f"clamd's connection failed ({type(error).__name__})")
            raise self._failure or failed from None
        except Unavailable as error:
            raise self._failure or error from None
        finally:
            self.close()
        result = parse_reply(reply)  # clamd's reason for an error (its size limit) first
        if self._failure is not None:  # never a verdict on part of the content
            raise self._failure
        return result

    def _writer_write(self, *parts: bytes) -> None:
        writer = self._writer
        if writer is None or self._failure is not None:
            return
        try:
            for part in parts:
                writer.write(part)
        except OSError as error:
            self._failure = Unavailable(f"clamd's connection failed ({type(error).__name__})")

    async def _write(self, *parts: bytes) -> None:
        self._writer_write(*parts)
        await self._drain()

    async def _drain(self) -> None:
        writer = self._writer
        if writer is None or self._failure is not None:
            return
        try:
            async with asyncio.timeout(self.seconds):
                await writer.drain()
        except TimeoutError:
            self.fail(Unavailable("clamd did not take the content in time"))
        except OSError as error:
            # clamd may have answered (its size limit) and closed: `answer` reads what it said.
            self._failure = Unavailable(f"clamd's connection failed ({type(error).__name__})")

    def close(self) -> None:
        """Let go of the connection (whatever happened)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._reader = None
