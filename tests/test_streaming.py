"""Flow-controlled request bodies: reading pauses while the handler has not consumed enough."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from werkzeug.exceptions import RequestEntityTooLarge

from bff.streaming import HIGH_WATER, BffHTTPConnection, BffRequest, FlowBody, cut_off_streams

CHUNK = 64 * 1024


def _sender(chunks: int) -> tuple[Any, dict[str, int]]:
    state = {"sent": 0}

    async def receive() -> dict[str, Any]:
        state["sent"] += 1
        if state["sent"] <= chunks:
            return {"type": "http.request", "body": b"x" * CHUNK, "more_body": True}
        if state["sent"] == chunks + 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.disconnect"}

    return receive, state


async def test_a_streaming_handler_holds_back_a_fast_client() -> None:
    body = FlowBody(None, 1024)
    body.stream()
    receive, state = _sender(200)  # 12.5 MB offered as fast as possible
    connection = BffHTTPConnection.__new__(BffHTTPConnection)
    reader = asyncio.create_task(connection.handle_messages(SimpleNamespace(body=body), receive))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    # Paused after about HIGH_WATER (1 MB), far short of the 12.5 MB offered.
    assert HIGH_WATER <= state["sent"] * CHUNK <= 2 * 1024 * 1024
    total, peak = 0, 0
    async for chunk in body:
        total += len(chunk)
        peak = max(peak, len(chunk))
        await asyncio.sleep(0)  # a slow consumer
    assert total == 200 * CHUNK
    assert peak <= 2 * 1024 * 1024
    await asyncio.wait_for(reader, 1)


async def test_an_awaited_body_over_the_limit_is_413_without_waiting_for_the_rest() -> None:
    body = FlowBody(None, 256 * 1024)
    receive, _ = _sender(1000)
    connection = BffHTTPConnection.__new__(BffHTTPConnection)
    reader = asyncio.create_task(connection.handle_messages(SimpleNamespace(body=body), receive))  # type: ignore[arg-type]
    with pytest.raises(RequestEntityTooLarge):
        await asyncio.wait_for(body, 1)
    reader.cancel()


async def test_a_declared_length_over_the_limit_is_413_at_once() -> None:
    with pytest.raises(RequestEntityTooLarge):
        await FlowBody(10_000, 100)


async def test_small_awaited_bodies_arrive_whole() -> None:
    body = FlowBody(5, 100)
    body.append(b"he")
    body.append(b"llo")
    body.set_complete()
    assert await body == b"hello"


async def test_blueprints_as_quart_names_them_so_nested_hooks_run() -> None:
    """BffRequest.blueprints (by the endpoint, in one step) is Quart's own: each enclosing
    blueprint's hooks run for a nested blueprint's route, and none for an app route."""
    from quart import Blueprint, Quart, request
    from quart.wrappers import Request

    app = Quart(__name__)
    app.request_class = BffRequest
    outer, inner = Blueprint("outer", __name__), Blueprint("inner", __name__)
    ran: list[str] = []
    seen: list[tuple[list[str], list[str]]] = []

    @inner.get("/deep")
    async def deep() -> str:
        seen.append((request.blueprints, Request.blueprints.fget(request)))  # type: ignore[attr-defined]
        return "deep"

    @app.get("/top")
    async def top() -> str:
        seen.append((request.blueprints, Request.blueprints.fget(request)))  # type: ignore[attr-defined]
        return "top"

    @outer.before_request
    async def outer_hook() -> None:
        ran.append("outer")

    @inner.before_request
    async def inner_hook() -> None:
        ran.append("inner")

    outer.register_blueprint(inner, url_prefix="/in")
    app.register_blueprint(outer, url_prefix="/out")
    client = app.test_client()
    assert (await client.get("/out/in/deep")).status_code == 200
    assert (await client.get("/top")).status_code == 200
    assert (await client.get("/missing")).status_code == 404
    assert seen == [(["outer.inner", "outer"], ["outer.inner", "outer"]), ([], [])]
    assert ran == ["outer", "inner"]


async def test_the_rest_of_a_refused_body_is_received_and_thrown_away() -> None:
    body = FlowBody(None, 1024)
    receive, state = _sender(200)  # 12.5 MB
    connection = BffHTTPConnection.__new__(BffHTTPConnection)
    reader = asyncio.create_task(connection.handle_messages(SimpleNamespace(body=body), receive))  # type: ignore[arg-type]
    assert await asyncio.wait_for(body.discard_rest(13 * 1024 * 1024, 5), 5)
    assert body.complete and state["sent"] >= 201  # every chunk received, none kept
    assert bytes(body._data) == b""
    reader.cancel()


async def test_a_body_past_the_limit_is_given_up_and_stops_being_received() -> None:
    body = FlowBody(None, 1024)
    receive, state = _sender(200)
    connection = BffHTTPConnection.__new__(BffHTTPConnection)
    reader = asyncio.create_task(connection.handle_messages(SimpleNamespace(body=body), receive))  # type: ignore[arg-type]
    assert not await asyncio.wait_for(body.discard_rest(1024 * 1024, 5), 5)
    received = state["sent"]
    assert received * CHUNK <= 1024 * 1024 + 2 * CHUNK and not body.complete
    reader.cancel()


async def test_a_stalled_body_is_given_up_after_the_idle_time() -> None:
    body = FlowBody(None, 1024)
    body.append(b"x" * CHUNK)  # then nothing more arrives
    assert not await asyncio.wait_for(body.discard_rest(1024 * 1024, 0.05), 5)


async def test_a_streamed_body_cut_off_raises_at_its_reader_and_is_discarded_for_a_while() -> None:
    body = FlowBody(None, 1024)
    stream = body.stream()
    body.append(b"x" * CHUNK)
    assert len(await stream.__anext__()) == CHUNK
    waiting = asyncio.create_task(stream.__anext__())  # a reader waiting for the next chunk
    await asyncio.sleep(0)
    assert cut_off_streams(RuntimeError("stopping"), 0.05) >= 1  # this one among the process's
    assert await asyncio.wait_for(waiting, 1) == b""  # woken
    with pytest.raises(RuntimeError, match="stopping"):
        await stream.__anext__()
    body.append(b"y" * CHUNK)  # still arriving: thrown away, for the time the cut-off gave
    assert not await asyncio.wait_for(body.discard_rest(1024 * 1024, 60), 5)


async def test_a_body_that_has_all_arrived_is_not_cut_off() -> None:
    body = FlowBody(None, 1024)
    body.stream()
    body.append(b"x")
    body.set_complete()
    assert not body.cut_off(RuntimeError("stopping"), 1)
    assert await body.discard_rest(0, 0)
