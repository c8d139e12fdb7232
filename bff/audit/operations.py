"""Every operation the audit log records: one list, checked on each write."""

from __future__ import annotations

OPERATIONS: tuple[str, ...] = (
    # Sign-in and sessions
    "login",
    "login_failed",
    "logout",
    "logout_all",
    # Second factors (bff/mfa/): enrolment, removal, each second step's success and failure,
    # new recovery codes, and an admin's reset
    "mfa_enrol",
    "mfa_remove",
    "mfa_success",
    "mfa_failed",
    "mfa_recovery_codes",
    "mfa_reset",
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
    "folder_list",
    # A folder's patient demographics (name, date of birth, record number)
    "patient_view",
    "patient_update",
    # Full-text search (the query text and the number of results)
    "search",
    # Patient files
    "file_list",
    "file_upload",
    "file_view",
    # Text copied from a file's page in the viewer (its page and how many characters; a
    # user's further copies of the file's text within a minute one entry with their count)
    "file_copy",
    "file_delete",
    "profile_upload",
    "profile_view",
    "profile_delete",
    # Versions and the trash (an admin's delete is file_delete / profile_delete: to the trash)
    "version_list",
    "version_view",
    "version_create",
    "version_restore",
    "version_purge",
    "trash_list",
    "trash_restore",
    "trash_purge",
    # Malware scanning and content checks (bff/scan/, bff/files/screening.py): new content
    # refused (the scanner's signature, its bytes kept in quarantine; or the content checks'
    # message; a user's repeats within a minute one entry with their count), a held file
    # released by a clean scan (shown to the folder's staff from then on), an admin's look at
    # the quarantine and a removal from it
    "file_rejected",
    "file_released",
    "quarantine_list",
    "quarantine_delete",
    # The intake (bff/intake/): a document taken in (scanner, mailbox or upload; its refusals
    # are file_rejected), the inbox listed, an item's content viewed, routed to a folder by its
    # cover sheet, suggested, filed by a person (the folder's container and folder, so the
    # patient's access report finds it), split, rotated, deleted with its reason; a folder's
    # cover sheet printed (its sheet id, which the scan it routes names in intake_routed)
    "intake_received",
    "intake_list",
    "intake_view",
    "intake_routed",
    "intake_suggested",
    "intake_filed",
    "intake_split",
    "intake_rotated",
    "intake_deleted",
    "intake_sheet_printed",
    # Refused access by signed-in staff (a role not allowed, or not assigned: 403 or 404)
    "access_denied",
    # SmartTokens and emergency access
    "token_list",
    "token_register",
    "token_assign",
    "token_unlink",
    "token_revoke",
    "token_reactivate",
    "token_delete",
    "emergency_access",
    "emergency_refused",
    "emergency_end",
    # The audit log's own reports and exports (each is an access to what they show)
    "audit_report",
    "audit_export",
    # Command-line tools
    "demo_load",
)
