"""Live updates over Socket.IO: events, authorised rooms, Redis fan-out across processes."""
