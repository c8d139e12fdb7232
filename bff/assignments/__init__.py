"""assignments domain."""
