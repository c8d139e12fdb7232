"""Every operation the audit log records: one list, checked on each write."""

from __future__ import annotations

OPERATIONS: tuple[str, ...] = (
    # Sign-in and sessions
    "login",
    "login_failed",
    "logout",
    "logout_all",
    # Users
    "user_create",
    "user_update",
    "user_delete",
    "password_reset",
    # Storage and assignments
    "container_create",
    "folder_create",
    "container_assign",
    "container_unassign",
    "folder_assign",
    "folder_unassign",
    # Patient files
    "file_list",
    "file_upload",
    "file_view",
    "file_delete",
    "profile_upload",
    "profile_view",
    "profile_delete",
    # SmartTokens and emergency access
    "token_register",
    "token_assign",
    "token_unlink",
    "token_revoke",
    "token_reactivate",
    "token_delete",
    "emergency_access",
    "emergency_refused",
    # Command-line tools
    "demo_load",
)
