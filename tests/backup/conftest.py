"""The backup tests use the files tests' wards (a container, folders and staff)."""

from tests.files.conftest import any_ward, ward

__all__ = ["any_ward", "ward"]
