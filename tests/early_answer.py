"""An HTTP request whose answer is read while its body is still being sent.

A server (or nginx) that refuses an upload answers before the body is all in and closes the
connection. aiohttp reads the answer only between its writes and may meet the closed socket
first (a broken pipe instead of the answer, once in a run on a loaded machine); httpx sends the
whole body before it reads (a 30 MB upload at 1 MiB/s took 30 s to hear a refusal given at
once). Here h11 runs the exchange on a raw connection, sending in one task and reading in
another, so the answer is had as soon as it is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import h11


@dataclass
class Answer:
    status: int  # 0: the connection closed without an answer
    headers: dict[str, str]  # lower-case names
    body: bytes


async def post_streaming(
    url: str, body: AsyncIterator[bytes], headers: Mapping[str, str]
) -> Answer:
    """POST body (chunked) to url; the answer, whether or not the body was all sent."""
    parts = urlsplit(url)
    assert parts.hostname and parts.port, url
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(
        method="POST",
        target=parts.path + (f"?{parts.query}" if parts.query else ""),
        headers=[("Host", parts.netloc), ("Transfer-Encoding", "chunked"), *headers.items()],
    )

    async def send() -> None:
        with contextlib.suppress(ConnectionError, h11.LocalProtocolError):
            writer.write(conn.send(request) or b"")
            async for chunk in body:
                writer.write(conn.send(h11.Data(data=chunk)) or b"")
                await writer.drain()
            writer.write(conn.send(h11.EndOfMessage()) or b"")
            await writer.drain()

    sending = asyncio.create_task(send())
    answer = Answer(0, {}, b"")
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                if not data and conn.their_state is not h11.DONE:
                    return Answer(0, {}, b"")
            elif isinstance(event, h11.Response):
                answer.status = event.status_code
                answer.headers = {k.decode(): v.decode() for k, v in event.headers}
            elif isinstance(event, h11.Data):
                answer.body += event.data
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return answer
    finally:
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending
        writer.close()
