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
from collections.abc import AsyncIterator, Generator
from typing import Any

from hypercorn.typing import ASGIReceiveCallable
from quart import request
from quart.asgi import ASGIHTTPConnection
from quart.helpers import _split_blueprint_path
from quart.wrappers import Request
from quart.wrappers.request import Body
from werkzeug.exceptions import RequestEntityTooLarge

HIGH_WATER = 1024 * 1024


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

    def stream(self) -> FlowBody:
        """Consume this body in chunks (async for); the app-wide size limit no longer applies."""
        self._streaming = True
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

    def append(self, data: bytes) -> None:
        if not data:
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
    """Quart's ASGI HTTP connection that stops receiving while the body buffer is full."""

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


def streamed_body() -> AsyncIterator[bytes]:
    """The current request's body as a stream of chunks, with flow control."""
    body = request.body
    if not isinstance(body, FlowBody):
        raise TypeError("The app must use BffRequest as its request class")
    return body.stream()
