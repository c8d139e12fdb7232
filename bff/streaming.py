"""Request bodies with flow control, so a large upload is never held in memory.

Quart reads every ASGI message into the request body as fast as the client sends it, so a
handler that streams an upload to slow storage would still see the whole file pile up in RAM.
`FlowBody` pauses reading (and so, through Hypercorn, the TCP connection) while more than
`HIGH_WATER` bytes wait unconsumed. Routes that await the whole body keep the app-wide
`MAX_CONTENT_LENGTH` (413); a route that calls `request.body.stream()` consumes the body in
chunks and enforces its own limit.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections.abc import AsyncIterator, Generator
from typing import Any, cast

from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPResponseBodyEvent
from quart import request
from quart.asgi import ASGIHTTPConnection
from quart.helpers import _split_blueprint_path
from quart.wrappers import Request
from quart.wrappers.request import Body
from werkzeug.exceptions import RequestEntityTooLarge

HIGH_WATER = 1024 * 1024
IDLE_SECONDS = 60.0  # seconds without a byte before a stalled request body is given up


class FlowBody(Body):
    """A request body that stops receiving while too much of it waits unread."""

    def __init__(self, expected_content_length: int | None, max_content_length: int | None):
        super().__init__(expected_content_length, None)
        self._limit = max_content_length
        self._declared_too_large = (
            expected_content_length is not None
            and max_content_length is not None
            and expected_content_length > max_content_length
        )
        self._streaming = False
        self._room = asyncio.Event()
        self._room.set()
        self._buffered_too_much = asyncio.Event()
        self._received = 0  # bytes of the body received so far
        self._discard_limit: int | None = None  # discarding the rest, up to this many bytes
        self._arrived = asyncio.Event()  # set by each chunk received while discarding
        self._discard_until = math.inf  # loop time: a body cut off is discarded until then

    def stream(self) -> FlowBody:
        """Consume this body in chunks (async for); the app-wide size limit no longer applies."""
        self._streaming = True
        _streams.add(self)
        if len(self._data) < HIGH_WATER:
            self._room.set()
        return self

    async def wait_for_room(self) -> None:
        """Wait until the reader has consumed enough to receive more."""
        await self._room.wait()

    async def __anext__(self) -> bytes:
        try:
            return await super().__anext__()
        finally:
            if len(self._data) < HIGH_WATER:
                self._room.set()

    def __await__(self) -> Generator[Any, None, Any]:
        if self._declared_too_large:
            raise RequestEntityTooLarge()
        complete = asyncio.ensure_future(self._complete.wait())
        too_much = asyncio.ensure_future(self._buffered_too_much.wait())
        try:
            yield from asyncio.wait(
                [complete, too_much], return_when=asyncio.FIRST_COMPLETED
            ).__await__()
        finally:
            complete.cancel()
            too_much.cancel()
        if self._buffered_too_much.is_set():
            raise RequestEntityTooLarge()
        return bytes(self._data)

    def cut_off(self, error: Exception, seconds: float) -> bool:
        """Make this body's reader raise error at its next chunk, unless the body has all
        arrived already (then its request is past reading it), and discard what is left of
        it for at most seconds from now; whether it was cut off."""
        if self._complete.is_set():
            return False
        self._must_raise = error
        self._discard_until = asyncio.get_running_loop().time() + seconds
        self._has_data.set()  # wakes a reader waiting for the next chunk
        return True

    @property
    def complete(self) -> bool:
        """Whether the whole body has been received."""
        return self._complete.is_set()

    async def discard_rest(self, limit: int, idle: float) -> bool:
        """Receive what is left of this body and throw it away (see BffHTTPConnection). True
        once it has been read to its end; False when it went past limit bytes in all or no
        byte came for idle seconds (the connection must then close)."""
        if self._complete.is_set():
            return True
        self._discard_limit = limit
        self._data.clear()
        self._room.set()
        loop = asyncio.get_running_loop()
        while not self._complete.is_set():
            wait = min(idle, self._discard_until - loop.time())
            if self._received > limit or wait <= 0:
                return False
            self._arrived.clear()
            try:
                async with asyncio.timeout(wait):
                    await self._arrived.wait()
            except TimeoutError:
                return False
        return True

    def append(self, data: bytes) -> None:
        if not data:
            return
        self._received += len(data)
        if self._discard_limit is not None:
            if self._received > self._discard_limit:
                self._room.clear()  # past the limit: receive nothing more
            self._arrived.set()
            return
        self._data.extend(data)
        self._has_data.set()
        if self._streaming:
            if len(self._data) >= HIGH_WATER:
                self._room.clear()
        elif self._limit is not None and len(self._data) > self._limit:
            # Stop receiving: either the handler streams (and drains) or awaits (and gets 413).
            self._room.clear()
            self._buffered_too_much.set()
        elif len(self._data) >= max(HIGH_WATER, self._limit or 0) * 4:
            self._room.clear()  # nobody reads yet: do not buffer without bound meanwhile

    def set_complete(self) -> None:
        super().set_complete()
        self._room.set()
        self._arrived.set()


class BffRequest(Request):
    """Quart's request with a flow-controlled body."""

    body_class = FlowBody

    @property
    def blueprints(self) -> list[str]:
        """Quart's, from the matched rule's endpoint directly (Quart asks three times per
        request, each through three properties)."""
        rule = self.url_rule
        if rule is None:
            return []
        blueprint, dot, _ = rule.endpoint.rpartition(".")
        return _split_blueprint_path(blueprint) if dot else []


class BffHTTPConnection(ASGIHTTPConnection):
    """Quart's ASGI HTTP connection that stops receiving while the body buffer is full, and
    ends an answer only once its request's body has been received.

    An answer decided before the body was read (401, 404, 413, 503...) is sent at once, all
    but its end; what is left of the body is then received and thrown away (up to the app's
    `DISCARD_BODY_LIMIT` bytes in all: what the proxy lets through), and only then does the
    answer end. Closing a connection whose body is still arriving resets it, and a proxy
    writing that body counts the instance as failed (nginx: "writev() failed (32: Broken
    pipe) while sending request to upstream", then "no live upstreams" for everyone). The
    answer's bytes are out meanwhile: with a Content-Length, nginx passes it on at once (and
    then ends the upstream connection itself). Past the limit, or after IDLE_SECONDS without
    a byte, the answer ends and the connection closes.
    """

    async def handle_request(self, request: Request, send: ASGISendCallable) -> None:
        body = request.body
        held: list[Any] = []

        async def sending(message: Any) -> None:
            if (
                message["type"] == "http.response.body"
                and not message.get("more_body", False)
                and isinstance(body, FlowBody)
                and not body.complete
            ):
                if message.get("body"):
                    await send(cast(HTTPResponseBodyEvent, {**message, "more_body": True}))
                held.append(message)
                return
            await send(message)

        # The answer is sent within Quart's RESPONSE_TIMEOUT; the body is received after it.
        await super().handle_request(request, sending)
        if held and isinstance(body, FlowBody):
            await body.discard_rest(self.app.config["DISCARD_BODY_LIMIT"], IDLE_SECONDS)
            await send(cast(HTTPResponseBodyEvent, {**held[0], "body": b""}))

    async def handle_messages(self, request: Request, receive: ASGIReceiveCallable) -> None:
        body = request.body
        while True:
            if isinstance(body, FlowBody):
                await body.wait_for_room()
            message = await receive()
            if message["type"] == "http.request":
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    body.set_complete()
            elif message["type"] == "http.disconnect":
                return


# Bodies read as streams (uploads) in this process, while their requests last.
_streams: weakref.WeakSet[FlowBody] = weakref.WeakSet()


def cut_off_streams(error: Exception, seconds: float) -> int:
    """Every streamed body still arriving: its reader raises error at its next chunk, and
    what is left of it is discarded for at most seconds (a server that stops answers the
    uploads it cannot finish, then closes their connections); how many were cut off."""
    return sum(body.cut_off(error, seconds) for body in list(_streams))


def streamed_body() -> AsyncIterator[bytes]:
    """The current request's body as a stream of chunks, with flow control."""
    body = request.body
    if not isinstance(body, FlowBody):
        raise TypeError("The app must use BffRequest as its request class")
    return body.stream()
