"""The Socket.IO server mounted beside the Quart app, and how events leave it.

A client connects with its session token in the `auth` payload (`{token}`); without a valid
session the connection is refused. Each connection joins its user's room, its session's room
and, for admins, the admins room. With BFF_REDIS_URL set, events fan out through Redis to every
process (python-socketio's Redis manager); without it, one process delivers them itself.

A connection lasts no longer than its session: each one ends (with `session:revoked`) when its
session expires, and every BFF_LIVE_SESSION_CHECK_SECONDS each process re-checks the sessions
of its connections and of its session cache in one query, ending those that are gone however
they ended (the command line without Redis, a change made while Redis was down, a row deleted
by hand).

The Redis link (python-socketio's manager, with our own listen loop: bff/live/managers.py): it
is "up" once this process is subscribed, and "down" from the moment the subscription fails or
stops answering pings. While it is down this process cannot hear other processes' sign-outs and
changes, so its session cache is not trusted (every request reads the database) and the session
check runs every second; it reconnects every half second. When the link comes back the cache
starts afresh, the sessions of this process's connections are re-checked at once, and every
connection gets `live:resync`, so clients refetch what events of other processes they missed.

Clients only connect (with their token) and answer pings: a message from a client over
CLIENT_MESSAGE_LIMIT bytes ends its connection (Engine.IO's limit, 1 MB by default, let any
signed-in client make the server hold and parse large messages). A connection not connected
with a session within BFF_LIVE_CONNECT_SECONDS of opening is closed, at most
BFF_LIVE_UNCONNECTED_PER_ADDRESS of them per client address (`Unconnected`: HandshakeGate
counts websockets, bff/live/polling.py long-polling sessions). A storm of connections takes
turns: a few accepted at each turn of the loop, HANDSHAKES_AT_ONCE set up on the CPU at once
(bff/live/transport.py, bff/live/turns.py).

Each process delivers events to its own connections from one task, in the order they were
sent, to the connections that were its recipients when it was sent, a slice of packets at a
turn of the loop, a client leaving QUEUED_LIMIT packets unread cut (bff/live/delivery.py); an
emit without Redis returns once it is delivered. A connection's session ending goes through
the same queue: `session:revoked`, then the connection closed, before any later event.

Transports: clients should use the websocket transport (the web app does). Long-polling needs
every request of a connection to reach the same process, so with several workers or instances
it would need sticky sessions; websocket-only needs none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import Any

import socketio
from hypercorn.middleware import ProxyFixMiddleware
from quart import Quart
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bff import collector, metrics
from bff.auth.session_cache import SessionCache
from bff.auth.sessions import ENROL_FIRST, authenticate, ended_sessions
from bff.errors import ApiError
from bff.live import patches
from bff.live.delivery import LiveEventDropped, deliver
from bff.live.events import (
    ADMINS,
    LIVE_RECONNECT,
    LIVE_RESYNC,
    SESSION_REVOKED,
    redis_channel,
    session_room,
    user_room,
)
from bff.live.managers import (
    LocalManager,
    RedisManager,
    RoomsKeptLocalManager,
    RoomsKeptRedisManager,
)
from bff.live.polling import PollingSessions
from bff.live.transport import SOCKETIO_PATH, HandshakeGate, raise_open_file_limit
from bff.live.unconnected import Unconnected
from bff.services import app_services
from bff.waits import wait_set
from config.settings import Settings

log = logging.getLogger(__name__)

SEND_TIMEOUT = 3.0  # seconds an emit may take before it is given up (Redis down)
OUTAGE_CHECK_SECONDS = 1.0  # the session check's period while the Redis link is down
FENCE_SECONDS = 1.0  # how long a sign-out waits for every other process to confirm it
CLIENT_MESSAGE_LIMIT = 16 * 1024  # bytes of one message from a client (its token is ~100)
RESTARTING = "The server is restarting. Please connect again."


class LiveHub:
    """The Socket.IO server of one process and its fire-and-forget sender."""

    def __init__(self, settings: Settings, session_cache: SessionCache | None = None) -> None:
        manager: socketio.AsyncManager
        # Each connection's rooms kept by connection (bff/live/patches/rooms.py), or not.
        chosen = patches.chosen(settings.live_tuning, settings.live_patches_force)
        rooms_kept = "rooms-by-connection" in chosen
        if settings.redis_url:
            manager = (RoomsKeptRedisManager if rooms_kept else RedisManager)(
                settings.redis_url,
                channel=redis_channel(settings.redis_url),
                # No silent reconnection inside redis-py: the listen loop must see every drop.
                redis_options={
                    "socket_connect_timeout": 1,
                    "socket_timeout": 2,
                    "retry": Retry(NoBackoff(), 0),
                },
            )
            manager.session_cache = session_cache
            manager.on_link = self._on_link
            if session_cache is not None:  # not until this process hears the others
                session_cache.distrust()
        else:
            manager = RoomsKeptLocalManager() if rooms_kept else LocalManager()
        self.settings = settings
        self.session_cache = session_cache
        self.draining = False  # the process is stopping (`drain`)
        self.sio = socketio.AsyncServer(
            async_mode="asgi",
            client_manager=manager,
            logger=False,
            engineio_logger=False,
            max_http_buffer_size=CLIENT_MESSAGE_LIMIT,
        )
        self._tasks: set[asyncio.Task[None]] = set()
        # This process's connections: sid -> session id, and the timers ending them at expiry.
        self._sessions: dict[str, str] = {}
        self._expiry: dict[str, asyncio.TimerHandle] = {}
        self._checker: asyncio.Task[None] | None = None
        # With Redis: whether this process is subscribed (hears other processes) right now;
        # None until the first attempt.
        self.link_up: bool | None = None if settings.redis_url else True
        self._link_lost_at: float | None = None
        self._link_changed = asyncio.Event()
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        self.unconnected = Unconnected(
            settings.live_unconnected_per_address, settings.live_connect_seconds
        )
        # Long-polling sessions until they connect at Socket.IO (Engine.IO's connect and
        # disconnect handlers: python-socketio's own, called from there).
        self.polling = PollingSessions(self.sio, self.unconnected, self._spawn)

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any) -> None:
        if self.draining:  # stopping: the client retries, and finds an instance that is up
            raise socketio.exceptions.ConnectionRefusedError(RESTARTING)
        token = auth.get("token") if isinstance(auth, dict) else None
        try:
            principal = await authenticate(
                token if isinstance(token, str) else None, self.settings, self.session_cache
            )
        except ApiError as exc:
            raise socketio.exceptions.ConnectionRefusedError(exc.message) from None
        except Exception as exc:  # noqa: BLE001 - e.g. the database is down: refuse, do not crash
            log.warning("Live connection refused: %s", type(exc).__name__)
            raise socketio.exceptions.ConnectionRefusedError("Please try again.") from None
        if principal.restricted:  # may only set up a second factor: no live updates
            raise socketio.exceptions.ConnectionRefusedError(ENROL_FIRST)
        await self.sio.enter_room(sid, user_room(principal.user_id))
        await self.sio.enter_room(sid, session_room(principal.session_id))
        if principal.is_admin:
            await self.sio.enter_room(sid, ADMINS)
        self._sessions[sid] = principal.session_id
        metrics.live_connections(+1)
        self.polling.connected(sid)
        if principal.expires_at is not None:
            delay = (principal.expires_at - datetime.now(UTC)).total_seconds()
            self._expiry[sid] = asyncio.get_running_loop().call_later(
                max(0.0, delay), self._expired, sid
            )

    def _expired(self, sid: str) -> None:
        self._expiry.pop(sid, None)
        self._spawn(self._end_connections([sid], "expired"))

    async def _disconnect(self, sid: str, *args: Any) -> None:
        if not self._on_wire(sid):  # long-polling leaves objects in cycles: bff/collector.py
            collector.connection_closed()
        if self._sessions.pop(sid, None) is not None:
            metrics.live_connections(-1)
        timer = self._expiry.pop(sid, None)
        if timer is not None:
            timer.cancel()

    def _on_wire(self, sid: str) -> bool:
        """Whether a connection is a websocket from the start under Hypercorn (it has a Wire,
        bff/live/patches/wire.py): its end leaves nothing for the cycle collector."""
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, "/")
        socket = self.sio.eio.sockets.get(eio_sid) if eio_sid is not None else None
        return getattr(socket, "wire", None) is not None

    async def _end_connections(self, sids: list[str], reason: str) -> None:
        """Tell these connections of this process that their session ended, and close them:
        through this process's delivery task, after the events sent to them before and before
        any sent after (bff/live/delivery.py), with or without Redis."""
        manager = self.sio.manager
        told = [deliver(manager, SESSION_REVOKED, {"reason": reason}, "/", sid) for sid in sids]
        if told:
            await asyncio.wait(told)  # never cancels them, even if this is cancelled
        for sid in sids:  # in case the delivery could not (the app stopping)
            with contextlib.suppress(Exception):  # the client may be gone already
                await self.sio.disconnect(sid, ignore_queue=True)

    async def check_sessions(self) -> int:
        """End the connections and forget the cached sessions whose session has ended, in one
        query; return how many connections ended."""
        cached = self.session_cache.session_ids() if self.session_cache is not None else []
        ended = await ended_sessions(sorted(set(self._sessions.values()) | set(cached)))
        if self.session_cache is not None:
            for session_id in ended:
                self.session_cache.forget_session(session_id)
        sids = [sid for sid, session_id in list(self._sessions.items()) if session_id in ended]
        await self._end_connections(sids, "ended")
        return len(sids)

    async def _on_link(self, up: bool) -> None:
        """The Redis link came up or went down (called by the manager's listen loop)."""
        if up == self.link_up:
            return
        self.link_up = up
        metrics.redis_link(up)
        self._link_changed.set()
        if not up:
            self._link_lost_at = time.monotonic()
            log.warning(
                "Redis link lost: sessions are read from the database on every request "
                "until it is back"
            )
            if self.session_cache is not None:
                self.session_cache.distrust()
            return
        if self.session_cache is not None:
            self.session_cache.trust()
        if self._link_lost_at is not None:
            log.warning("Redis link back after %.1f s", time.monotonic() - self._link_lost_at)
            self._link_lost_at = None
        self._spawn(self._resync())

    async def _resync(self) -> None:
        """After the link (re)gained: end the connections whose session ended meanwhile, and
        tell the others to refetch (events of other processes may have been lost)."""
        try:
            await self.check_sessions()
        except Exception as exc:  # noqa: BLE001 - e.g. the database is down: the next check
            log.warning("Live session check failed: %s", type(exc).__name__)
        with contextlib.suppress(Exception):
            await self.sio.emit(LIVE_RESYNC, {}, ignore_queue=True)

    async def _check_periodically(self) -> None:
        while True:
            # While the Redis link is down nothing tells this process of other processes'
            # sign-outs: its connections are re-checked every OUTAGE_CHECK_SECONDS then.
            period = self.settings.live_session_check_seconds
            if not self.link_up:
                period = min(period, OUTAGE_CHECK_SECONDS)
            self._link_changed.clear()
            if await wait_set(self._link_changed, period):
                continue  # the link changed: start a new period of the right length
            try:
                await self.check_sessions()
            except Exception as exc:  # noqa: BLE001 - e.g. the database is down: next time
                log.warning("Live session check failed: %s", type(exc).__name__)

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _emit(self, event: str, payload: dict[str, Any], rooms: list[str]) -> None:
        """Send through Redis (given up after SEND_TIMEOUT: Redis down or hanging), or, with
        one process, deliver here (however long this process's earlier events take)."""
        emitted = self.sio.emit(event, payload, to=rooms)
        try:
            if isinstance(self.sio.manager, RedisManager):
                await asyncio.wait_for(emitted, SEND_TIMEOUT)
            else:
                await emitted
        except LiveEventDropped:
            pass  # logged and counted where it was dropped
        except Exception as exc:  # noqa: BLE001 - a live event must never fail a request
            metrics.live_event(event, False)
            log.warning("Live event %s not delivered: %s", event, type(exc).__name__)
        else:
            metrics.live_event(event, True)

    async def start(self) -> None:
        """Start listening to the other processes at once, not at the first connection here:
        their session changes must reach this process's session cache even when no live
        client is connected to it."""
        limit = raise_open_file_limit()
        if limit < 4096:
            log.warning(
                "Open-file limit %d: at most about %d live connections; raise `ulimit -n`",
                limit,
                limit - 100,
            )
        if not self.sio.manager_initialized:
            self.sio.manager_initialized = True
            self.sio.manager.initialize()
        self._checker = asyncio.get_running_loop().create_task(self._check_periodically())

    async def close(self) -> None:
        """Let pending events go out briefly, then release the Redis connections."""
        if self._checker is not None:
            self._checker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checker
        for timer in self._expiry.values():
            timer.cancel()
        self.polling.close()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=SEND_TIMEOUT)
        manager = self.sio.manager
        if isinstance(manager, RedisManager | LocalManager):
            await manager.aclose()

    async def drain(self) -> int:
        """The process is stopping: tell this process's connections to reconnect, then drop
        their transport, so Hypercorn's graceful wait is not held by open websockets and every
        client reconnects by itself. Returns how many were connected.

        Neither a Socket.IO DISCONNECT nor an Engine.IO CLOSE: python-socketio's client takes
        either for the server's refusal and never reconnects (its `_handle_eio_disconnect`
        reconnects only when its Engine.IO state is still "connected", i.e. the transport
        dropped), while socket.io-client reconnects after a closed transport either way. So each
        websocket's writer is ended, which closes the websocket (close frame 1000, after what
        was queued before it: `live:reconnect`), and a long-polling client's waiting poll ends
        empty and its next one finds the session gone (400): both are a dropped transport to
        either client. From now on a connection is refused (the client retries), so none made
        meanwhile holds the graceful wait either."""
        self.draining = True
        sids = list(self._sessions)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.sio.emit(LIVE_RECONNECT, {"reason": "restarting"}, ignore_queue=True),
                SEND_TIMEOUT,
            )
        engine = self.sio.eio
        for eio_sid, socket in list(engine.sockets.items()):
            engine.sockets.pop(eio_sid, None)
            with contextlib.suppress(Exception):  # the client may be gone already
                # abort: no CLOSE packet; the server's disconnect handlers run as for any end
                await socket.close(wait=False, abort=True, reason=engine.reason.SERVER_DISCONNECT)
                socket.queue.put_nowait(None)  # its writer (or waiting poll) ends
        return len(sids)

    async def send(self, event: str, payload: dict[str, Any], rooms: list[str]) -> None:
        """Start delivering event to rooms without waiting for it; but a sign-out
        (session:revoked) is waited for until every process has heard it (`fence`, at most
        FENCE_SECONDS), so that its answer means the session is over on every instance: a
        process answers from its session cache, and hears of a sign-out elsewhere only when
        the event reaches it (4-6 ms later, in which a request to it still succeeded)."""
        manager = self.sio.manager
        emitted = self._spawn(self._emit(event, payload, rooms))
        if event == SESSION_REVOKED and isinstance(manager, RedisManager) and self.link_up:
            # One limit for the whole wait: a Redis that hangs before the link is seen down must
            # not hold a sign-out for the emit's own SEND_TIMEOUT too. The emit goes on anyway.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + FENCE_SECONDS
            done, _ = await asyncio.wait({emitted}, timeout=FENCE_SECONDS)
            if emitted in done and (left := deadline - loop.time()) > 0:
                await manager.fence(left)


def start_live(app: Quart, settings: Settings, session_cache: SessionCache) -> LiveHub:
    """Create the app's Socket.IO server, started and closed with the app."""
    hub = LiveHub(settings, session_cache)
    app.before_serving(hub.start)
    app.after_serving(hub.close)
    return hub


def asgi_app(app: Quart) -> Any:
    """The app Hypercorn serves: Socket.IO at /socket.io, everything else to Quart.

    No on_startup/on_shutdown here: then the ASGI lifespan reaches Quart and its
    before_serving/after_serving hooks (database, storage) run. Behind a reverse proxy
    (BFF_TRUSTED_PROXY_HOPS > 0) the client address and scheme come from its X-Forwarded-*
    headers, for both HTTP and websockets. The live layer's patches of other libraries' code
    are applied here as BFF_LIVE_TUNING says (bff/live/patches/), the libraries' own code put
    back for those left out; PatchVersionError if a non-optional one was written for another
    version of its library (bff/live/patches/ `refuse_other_versions`).
    """
    hub = app_services(app).live
    tuning = patches.apply(hub.settings.live_tuning, hub.settings.live_patches_force)
    combined: Any = HandshakeGate(
        socketio.ASGIApp(hub.sio, other_asgi_app=app, socketio_path=SOCKETIO_PATH),
        hub.unconnected,
        wires="websocket-wire" in tuning,
    )
    hops = hub.settings.trusted_proxy_hops
    if hops:
        return ProxyFixMiddleware(combined, mode="legacy", trusted_hops=hops)
    return combined
