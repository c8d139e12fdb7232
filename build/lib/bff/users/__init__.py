"""users domain."""
