"""containers domain."""
