"""Sessions (and their users' assignments) recently read from the database, so most requests
need no query to authenticate and check permissions.

Every authenticated request would otherwise check its token's signature and read its session
(and user) row: at load that costs more than the rest of a small JSON request. Entries live for
BFF_SESSION_CACHE_SECONDS at most and never past the session's own expiry. Whatever ends or
changes a session forgets it here when it commits (`forget_session`, `forget_user`), and the
live hub repeats that in every other process through Redis (`forget_for_event`; the command
line announces its changes there too), so a sign-out or an account change takes effect at once
everywhere; a change no process hears of (the command line without Redis, a row deleted by
hand) lasts until the time limit or the live hub's periodic re-check (`session_ids`), whichever
comes first.

With Redis, the cache is trusted only while this process is subscribed to it: while the link is
down the process cannot hear other processes' changes, so the live hub calls `distrust` and
every request reads its session and assignments from the database until `trust` (when the link
is back; both forget everything held). That is fail safe: an outage costs queries, never a
signed-out token that still works.

When a session last proved its password or a factor (the step-up rule) is not held here:
bff/auth/stepup.py reads it from the session's row on each sensitive request, so a confirmation
on one instance counts on every other at once.

A read that started before a change commits must not put the old state back: `generation()`
is taken before the read and `put` refuses the result once anything was forgotten since.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from cachetools import TTLCache

from bff import metrics
from bff.live.events import ASSIGNMENTS_CHANGED, SESSION_REVOKED, USERS_CHANGED

if TYPE_CHECKING:
    from bff.assignments.access import Assignments
    from bff.auth.sessions import Principal

MAX_ENTRIES = 20_000
TOKEN_SECONDS = 600

K = TypeVar("K")
V = TypeVar("V")


def _held(cache: TTLCache[K, V], key: K) -> V | None:
    """cache.get(key) in one step: TTLCache.get asks whether the key is there, then reads it,
    each under its own look at the clock, on every request. A miss (KeyError: absent or
    expired, as for get) is rare on the request path: once per session per time limit."""
    try:
        return cache[key]
    except KeyError:
        return None


class SessionCache:
    """Checked tokens, principals by session id (with the session's expiry), and users'
    assignments by user id."""

    def __init__(self, seconds: float, max_entries: int = MAX_ENTRIES) -> None:
        self.enabled = seconds > 0
        self.trusted = True  # False while the Redis link is down: nothing is read or kept
        self._entries: TTLCache[str, tuple[Principal, datetime]] = TTLCache(
            maxsize=max_entries, ttl=seconds or 1, timer=time.monotonic
        )
        # A user's assignments, by user id: what every permission check and dashboard reads.
        self._assignments: TTLCache[int, Assignments] = TTLCache(
            maxsize=max_entries, ttl=seconds or 1, timer=time.monotonic
        )
        self._generation = 0
        # Tokens whose signature was checked: token -> (session id, expiry as a Unix time).
        # A signature stays valid until the token expires, so these need no forgetting.
        self._tokens: TTLCache[str, tuple[str, float]] = TTLCache(
            maxsize=max_entries, ttl=TOKEN_SECONDS, timer=time.monotonic
        )

    def token_session(self, token: str) -> str | None:
        """The session id of a token whose signature was already checked, while it is valid."""
        entry = _held(self._tokens, token)
        if entry is None or entry[1] <= time.time():
            return None
        return entry[0]

    def remember_token(self, token: str, session_id: str, expires: float) -> None:
        """Remember that token's signature is good: it names session_id until `expires`."""
        if self.enabled:
            self._tokens[token] = (session_id, expires)

    def get(self, session_id: str) -> Principal | None:
        """The cached principal of a session still within its expiry, or None."""
        entry = _held(self._entries, session_id) if self.trusted else None
        metrics.session_cache(entry is not None)
        if entry is None:
            return None
        principal, expires_at = entry
        if expires_at <= datetime.now(UTC):
            self._entries.pop(session_id, None)
            return None
        return principal

    def generation(self) -> int:
        """A mark to hand back to `put`: taken before reading a session from the database."""
        return self._generation

    def put(self, generation: int, principal: Principal, expires_at: datetime) -> None:
        """Remember a principal read since `generation`, unless something was forgotten since."""
        if self.enabled and self.trusted and generation == self._generation:
            self._entries[principal.session_id] = (principal, expires_at)

    def assignments(self, user_id: int) -> Assignments | None:
        """A user's cached assignments, or None."""
        return _held(self._assignments, user_id) if self.trusted else None

    def put_assignments(self, generation: int, user_id: int, assignments: Assignments) -> None:
        """Remember a user's assignments read since `generation` (as `put`)."""
        if self.enabled and self.trusted and generation == self._generation:
            self._assignments[user_id] = assignments

    def forget_assignments(self, user_id: int) -> None:
        """Drop a user's assignments."""
        self._generation += 1
        self._assignments.pop(user_id, None)

    def forget_session(self, session_id: str) -> None:
        """Drop one session."""
        self._generation += 1
        self._entries.pop(session_id, None)

    def forget_user(self, user_id: int) -> None:
        """Drop every session of one user, and their assignments."""
        self.forget_assignments(user_id)
        for session_id, (principal, _) in list(self._entries.items()):
            if principal.user_id == user_id:
                self._entries.pop(session_id, None)

    def distrust(self) -> None:
        """The changes of other processes can no longer be heard (the Redis link is down):
        forget everything, and neither answer from nor fill the cache until `trust`."""
        self.trusted = False
        self._forget_all()

    def trust(self) -> None:
        """Other processes' changes are heard again: start caching afresh. What was read
        before (during the outage, changes unheard) is refused by `put` and forgotten."""
        self._forget_all()
        self.trusted = True

    def _forget_all(self) -> None:
        self._generation += 1
        self._entries.clear()
        self._assignments.clear()

    def session_ids(self) -> list[str]:
        """The sessions held now (re-checked against the database with the live ones)."""
        return list(self._entries.keys())

    def forget_for_event(self, event: str, payload: Any, rooms: Any) -> None:
        """Apply a live event of any process: session, account and assignment changes forget
        the user's (or session's) cached entries."""
        if event == SESSION_REVOKED:
            for target in rooms if isinstance(rooms, list) else [rooms]:
                kind, _, key = str(target).partition(":")
                if kind == "session":
                    self.forget_session(key)
                elif kind == "user" and key.isdigit():
                    self.forget_user(int(key))
        elif event in (USERS_CHANGED, ASSIGNMENTS_CHANGED) and isinstance(payload, dict):
            user_id = payload.get("userId")
            if isinstance(user_id, int):
                self.forget_user(user_id)

    def __len__(self) -> int:
        return len(self._entries)
