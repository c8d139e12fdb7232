"""asyncio's selector event loop taking turns (`TurnTakingLoop`): a storm's connections accepted
ACCEPTS_PER_TURN at a turn of the loop, and the connections ready served EVENTS_PER_TURN at a
turn, so requests go on being answered. It overrides asyncio's private `_accept_connection` and
reads the epoll selector's private state: see the patch's declaration in __init__.py.
"""

from __future__ import annotations

import asyncio
import math
import select
import selectors

# New connections a turn of the loop accepts (asyncio accepts up to the listen backlog, 4,096
# here, at once, and sets all of them up in the next turn); the rest wait in the kernel's queue.
ACCEPTS_PER_TURN = 4
# Connections ready to read or write that a turn of the loop serves (the others the next turns,
# in the order they became ready): each is 0.1-0.3 ms of work, and a request waits for a few
# turns (its read, its handler's steps, its answer).
EVENTS_PER_TURN = 16


if hasattr(selectors, "EpollSelector"):  # Linux

    class _TurnSelector(selectors.EpollSelector):
        """epoll, answering at most EVENTS_PER_TURN ready connections at a time (the selectors
        module's own asks for all of them). The kernel keeps the others ready, first in line for
        the next turn, so each is served in the order it became ready."""

        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            if timeout is None:
                timeout = -1
            elif timeout <= 0:
                timeout = 0
            else:  # epoll's resolution is a millisecond: wait at least `timeout`
                timeout = math.ceil(timeout * 1e3) * 1e-3
            ready: list[tuple[selectors.SelectorKey, int]] = []
            try:
                fd_events = self._selector.poll(timeout, EVENTS_PER_TURN)  # type: ignore[attr-defined]
            except InterruptedError:
                return ready
            for fd, event in fd_events:
                events = 0
                if event & ~select.EPOLLIN:
                    events |= selectors.EVENT_WRITE
                if event & ~select.EPOLLOUT:
                    events |= selectors.EVENT_READ
                key = self._key_from_fd(fd)  # type: ignore[attr-defined]
                if key:
                    ready.append((key, events & key.events))
            return ready


def turn_selector() -> selectors.BaseSelector | None:
    """A selector answering EVENTS_PER_TURN ready connections at a time (None without epoll:
    asyncio's own)."""
    return _TurnSelector() if hasattr(selectors, "EpollSelector") else None


class TurnTakingLoop(asyncio.SelectorEventLoop):
    """asyncio's event loop, accepting at most ACCEPTS_PER_TURN new connections at a turn.
    When the listening socket is readable, asyncio's loop accepts as many connections as the
    listen backlog allows and sets each one up in its next turn: in a storm hundreds at once,
    with every request in flight waiting behind them (`GET /api/auth/me` p99 0.7 s during a
    5,000-connection storm; about 50 ms taking turns). Accepting stays level-triggered, so the
    connections left in the kernel's queue are taken at the following turns.

    And (by default) at most EVENTS_PER_TURN connections with something to read (or room to
    write) are served at a turn (`_TurnSelector`, where there is epoll): in a storm the clients
    answer in bursts (150 connections' upgrade requests in one turn, 30-45 ms of work), and a
    request needs several turns of the loop, each that long (`GET /api/auth/me` waited 240-350
    ms)."""

    def __init__(self, selector: selectors.BaseSelector | None = None) -> None:
        super().__init__(turn_selector() if selector is None else selector)

    def _accept_connection(  # type: ignore[no-untyped-def]
        self, protocol_factory, sock, sslcontext=None, server=None, backlog=100, *args, **kwargs
    ) -> None:
        super()._accept_connection(  # type: ignore[misc]
            protocol_factory,
            sock,
            sslcontext,
            server,
            min(backlog, ACCEPTS_PER_TURN),
            *args,
            **kwargs,
        )


class _TurnTakingPolicy(asyncio.DefaultEventLoopPolicy):
    def __init__(self, accept: bool, ready: bool) -> None:
        super().__init__()
        self._accept = accept
        self._ready = ready

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        selector = turn_selector() if self._ready else selectors.DefaultSelector()
        if self._accept:
            return TurnTakingLoop(selector)
        return asyncio.SelectorEventLoop(selector)


def take_turns(accept: bool, ready: bool) -> None:
    """Event loops made from now on in this process accept ACCEPTS_PER_TURN connections a turn
    (`accept`: `TurnTakingLoop`) and serve EVENTS_PER_TURN ready ones a turn (`ready`), or
    neither: asyncio's own loop. bff/asgi.py calls it (through bff/live/patches' `apply_loop`)
    as Hypercorn's asyncio worker loads the app, before the worker makes its loop (a uvloop
    worker would not use it)."""
    policy = _TurnTakingPolicy(accept, ready) if accept or ready else None
    asyncio.set_event_loop_policy(policy)
