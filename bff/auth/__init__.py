"""auth domain."""
