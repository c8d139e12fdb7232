"""The turns of a live connection's set-up (`Gate`, `Turn`): at most a few connections of a
process set up on the CPU at once, first come first served, a turn given back while the set-up
waits for the client or the database, and after HANDSHAKE_SECONDS in any case. Taken by
HandshakeGate (bff/live/transport.py).
"""

from __future__ import annotations

import asyncio
import collections

HANDSHAKE_SECONDS = 5.0  # a connection's turn ends after this long in any case


class Gate:
    """HANDSHAKES_AT_ONCE turns, handed from one connection to the next, first come first
    served; a set-up coming back from its session lookup (`stepping_aside`) goes ahead of the
    others waiting, so it is not left half done behind a storm."""

    def __init__(self, turns: int) -> None:
        self._free = turns
        self._returning: collections.deque[asyncio.Future[None]] = collections.deque()
        self._arriving: collections.deque[asyncio.Future[None]] = collections.deque()

    async def take(self, returning: bool = False) -> None:
        if self._free > 0:  # then nobody waits: a turn given back goes to a waiter first
            self._free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        (self._returning if returning else self._arriving).append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed over, then cancelled
                self.give_back()
            raise

    def give_back(self) -> None:
        for waiting in (self._returning, self._arriving):
            while waiting:
                waiter = waiting.popleft()
                if not waiter.done():  # not cancelled meanwhile
                    waiter.set_result(None)
                    return
        self._free += 1


class Turn:
    """A connection's turn at the gate (bff/waits.py's CpuTurn): taken, given back (at most
    once per take), and given back after HANDSHAKE_SECONDS in any case; never taken once the
    connection has ended. Stepped aside from while the set-up waits for the database, and
    taken again after only if nothing ended it meanwhile (the answer sent, the connection
    closed, its time up)."""

    def __init__(self, gate: Gate) -> None:
        self._gate = gate
        self._timer: asyncio.TimerHandle | None = None
        self._aside = False
        self.held = False
        self.ended = False

    async def take(self, returning: bool = False) -> None:
        if self.held or self.ended:
            return
        await self._gate.take(returning)
        if self.ended:  # the connection ended while it waited
            self._gate.give_back()
            return
        self.held = True
        self._timer = asyncio.get_running_loop().call_later(HANDSHAKE_SECONDS, self.give_back)

    def give_back(self) -> None:
        self._aside = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.held:
            self.held = False
            self._gate.give_back()

    def step_aside(self) -> bool:
        """Give the turn back while the set-up waits for another server; whether it was held."""
        if not self.held:
            return False
        self.give_back()
        self._aside = True
        return True

    async def come_back(self) -> None:
        """After a `step_aside`: the turn again, unless something ended it meanwhile."""
        if self._aside:
            self._aside = False
            await self.take(returning=True)

    def end(self) -> None:
        self.ended = True
        self.give_back()
