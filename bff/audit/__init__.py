"""audit domain."""
