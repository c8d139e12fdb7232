"""Small helpers about the current request that every domain uses."""

from __future__ import annotations

from quart import g, request

from bff.audit.service import Actor


def client_address() -> str:
    """The caller's address (Hypercorn's proxy-header handling sets it behind a proxy)."""
    return (request.remote_addr or "")[:64]


def current_actor() -> Actor:
    """The caller as an audit Actor (set by the permission decorator): staff or responder."""
    emergency = g.get("emergency")
    if emergency is not None:
        actor: Actor = emergency.actor(client_address())
        return actor
    principal = g.principal
    return Actor(principal.user_id, principal.name, principal.role, client_address())
