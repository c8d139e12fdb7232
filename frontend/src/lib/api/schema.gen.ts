// Generated from the BFF OpenAPI document by scripts/check-api-types.mjs --write. Do not edit.
// Named aliases for the app live in types.ts.

export interface paths {
    "/api/admin/containers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a storage container. */
        post: operations["post_create_container"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/containers/{container}/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a patient folder in a container. */
        post: operations["post_create_folder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/quarantine": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the malware scanner found and kept in quarantine, newest first (audited). */
        get: operations["get_list_quarantine"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/quarantine/{quarantine_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a quarantined content for good: its bytes and its entry (audited). */
        delete: operations["delete_delete_quarantined"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/scanning": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether a malware scanner is configured and answers now, and what it holds. */
        get: operations["get_scanning"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/{assignment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a container assignment (with its folders) or a folder assignment. */
        delete: operations["delete_unassign"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/containers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Containers the caller may see (all for admins), searchable and paged. */
        get: operations["get_list_containers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/containers/{container}/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Folders of a container the caller may see (all for admins), with their patients,
         * @description searchable (folder name, patient name, record number, date of birth) and paged.
         */
        get: operations["get_list_folders"];
        put?: never;
        /** Assign folders of an already-assigned container to a user (mode 'update'). */
        post: operations["post_assign_folders"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/containers/{container}/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Assign a container to a user (mode 'new'). */
        post: operations["post_assign_container"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/my-assignments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's containers and the folders assigned in each. */
        get: operations["get_my_assignments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/my-assignments/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's assigned folders in every container with their file counts, searchable
         * @description (folder name, patient name, record number, date of birth) and paged: My Assignments' list
         *     and the dashboard's patient search.
         */
        get: operations["get_my_folders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/my-assignments/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** File statistics of the caller's assigned folders, and their sum, in one response. */
        get: operations["get_my_assignment_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/assignments/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's container and folder assignments. */
        get: operations["get_user_assignments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/confirm-identity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm it's you (the password, a current authenticator code or a recovery code) before
         * @description a sensitive change: counts as a fresh sign-in for BFF_REAUTH_MINUTES and returns a
         *     one-use step-up proof for the x-step-up header.
         */
        post: operations["post_confirm_identity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with username and password: a session token or, for a user with a second
         * @description factor, an mfaToken for POST /api/auth/login/mfa (or, for a role that needs a second
         *     factor and has none, a session restricted to setting one up).
         */
        post: operations["post_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login/mfa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The second sign-in step: the mfaToken with a TOTP code, a recovery code or a passkey. */
        post: operations["post_login_mfa"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login/mfa/webauthn/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn request options for the second step (navigator.credentials.get). */
        post: operations["post_login_passkey_options"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End this session; one opened through the identity provider is told where to sign out
         * @description of the provider too (endSessionUrl).
         */
        post: operations["post_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End every session of the signed-in user, on every device. */
        post: operations["post_logout_all"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user with their assignments. */
        get: operations["get_me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's second factors. */
        get: operations["get_mfa_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/recovery-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ten new recovery codes replacing the old ones. */
        post: operations["post_regenerate_recovery_codes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/totp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start setting up an authenticator: a new pending secret (nothing changes until
         * @description confirmed).
         */
        post: operations["post_start_totp"];
        /** Remove the authenticator. */
        delete: operations["delete_remove_totp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/totp/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm the pending authenticator with a code from it; returns recovery codes. */
        post: operations["post_confirm_totp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/webauthn/{passkey_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a passkey. */
        delete: operations["delete_remove_passkey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/webauthn/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register the passkey the browser created with the options just issued. */
        post: operations["post_register_passkey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/mfa/webauthn/register/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** WebAuthn creation options for a new passkey (navigator.credentials.create). */
        post: operations["post_passkey_options"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/backchannel-logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenID Connect Back-Channel Logout 1.0: the provider's signed logout token ends every
         * @description session of its subject (or provider session), live.
         */
        post: operations["post_sso_backchannel_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The provider's answer: checked in full, then the web app's /login takes the sign-in up
         * @description (`#sso=`), or offers to link an account (`#sso-link=`), with a one-time code in the URL's
         *     fragment (never sent to a server, so never logged) that only this browser can use.
         */
        get: operations["get_sso_callback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Trade the callback's one-time code (a minute, once, in the browser that started the
         * @description sign-in) for a session, a restricted session or the second step: what POST
         *     /api/auth/login answers.
         */
        post: operations["post_sso_complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether single sign-on is configured, its button's name, and who may still use a
         * @description password (the login page).
         */
        get: operations["get_sso_config"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Link the provider's sign-in (`#sso-link=` code, 5 minutes, this browser) to a local
         * @description account by its password (a second factor follows if the account has one), and sign in:
         *     what POST /api/auth/login answers. Not for admin accounts.
         */
        post: operations["post_sso_link"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/link-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Link the provider's sign-in (`#sso-link=` code, 5 minutes, this browser) to the account
         * @description an administrator issued the link code for (once; a second factor follows if the account has
         *     one, whatever the provider did), and sign in: what POST /api/auth/login answers. A wrong
         *     code counts as a failed sign-in. Not for admin accounts.
         */
        post: operations["post_sso_link_code"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Send the browser to the identity provider (authorization code flow with PKCE); set the
         * @description cookie of this sign-in and the one naming this browser.
         */
        get: operations["get_sso_start"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a doctor, nurse or assistant (admin only). */
        post: operations["post_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/validate-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the session token is still valid, with its user. */
        get: operations["get_validate_token"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A folder's files, sorted by name, whether it has a profile image, and the upload limit;
         * @description each file's `preview` is a link to its thumbnail for this session (null while there is
         *     none).
         */
        get: operations["get_list_files"];
        put?: never;
        /**
         * Upload a file as multipart/form-data (file, filename; isProfileImage 'true' for a
         * @description profile image). RTF is converted to TXT; an existing name is 409 unless overwrite=true.
         */
        post: operations["post_upload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Move a file or the profile image, with its versions, to the folder's trash (admins
         * @description only); it is purged after BFF_TRASH_DAYS.
         */
        delete: operations["delete_delete_file"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/thumbnail/{version_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A file's thumbnail (WebP), by the link its folder's listing gave (that listing's audit
         * @description entry covers it); 404 once the file has changed (the listing then gives a new link).
         */
        get: operations["get_thumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived link that opens the file for this session, keeping the token out of URLs. */
        get: operations["get_view_link"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file's versions, newest first, the current one included. */
        get: operations["get_list_versions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/versions/{version_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make an earlier version current; the replaced content becomes a version in turn. */
        post: operations["post_restore_version"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/versions/{version_id}/url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived link that opens an earlier version for this session (as for the file). */
        get: operations["get_version_link"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/versions/{version_id}/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stream an earlier version (HTTP Range supported) by a signed link or the header. */
        get: operations["get_view_version"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a file (HTTP Range supported) by a signed link, the header, the auth query (only
         * @description with BFF_ALLOW_TOKEN_IN_URL), or a responder's emergency grant for this folder.
         */
        get: operations["get_view_file"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a file in the in-app viewer: one audited view (`file_view`, "in the viewer"); the
         * @description pages or content it links to, for this session and content version until expiresAt, are
         *     covered by that entry. Not for emergency grants (they open the original: `view`).
         */
        get: operations["get_open_viewer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An image's or a text's bytes for the viewer (HTTP Range supported), by the viewer
         * @description session's content link (its audit entry covers them); never redirected to another origin.
         *     Never a PDF's (404): the viewer shows its pages.
         */
        get: operations["get_viewer_content"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/copied": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Text was copied from a page in the viewer: audited `file_copy` (a user's copies of the
         * @description file's text within a minute one entry with their count); 204, 429 past the caller's 60
         *     copies a minute.
         */
        post: operations["post_viewer_copied"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where q is in the document (as search matches: words, "a phrase", prefix*), each match
         * @description a span of a page's words, at most 1000, those found in a few seconds (partial); 409 once
         *     the file has changed, 429 past the caller's finds per minute, 503 when busy.
         */
        get: operations["get_viewer_find"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A Word .docx as one sanitised HTML page rendered in the worker pool, by the viewer
         * @description session's HTML link (its audit entry covers it): a CSP that allows no script, no remote
         *     resource and no form, sandboxed (its origin kept: the viewer reports copies from it); 404
         *     once the file has changed or is held.
         */
        get: operations["get_viewer_html"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The reduced copy (WebP) of an image too large to hand to the browser, rendered in the
         * @description worker pool, by the viewer session's link (its audit entry covers it).
         */
        get: operations["get_viewer_image"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/text": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An RTF document's plain text, read in the worker pool, by the viewer session's text
         * @description link (its audit entry covers it).
         */
        get: operations["get_viewer_text"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/{blob}/viewer/{version_id}/words": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page's words with their boxes (fractions of the page, origin top-left), in reading
         * @description order; 404 when the page has no text stored, 409 once the file has changed.
         */
        get: operations["get_viewer_words"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/profile-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The folder's profile image (JPEG, 150x150). */
        get: operations["get_profile_image"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/trash": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The folder's trash: deleted files, who deleted them and when they will be purged. */
        get: operations["get_list_trash"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/trash/{blob}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a file in the trash for good (body {confirmation: "DELETE"}). */
        delete: operations["delete_purge_trashed"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/trash/{blob}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Bring a deleted file back with its versions (409 if a file of that name exists now). */
        post: operations["post_restore_trashed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{container}/{folder}/visit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record the caller's visit to the folder now and answer when the visit before it ended
         * @description (null: the first), so the web app can mark files added since as new. Requests within
         *     visits.VISIT_WINDOW (30 minutes) of the last are one visit, answered the same: a reload
         *     keeps the marks. Not audited: when someone opened a folder's list says nothing about the
         *     patient (the listing itself is audited). Not for emergency grants (a responder has no
         *     visits).
         */
        post: operations["post_visit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/{page}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A PDF's page as WebP at a width (snapped up to one of the viewer's widths), by the
         * @description viewer session's link (its audit entry covers every page).
         */
        get: operations["get_viewer_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Audit log entries, newest first, filtered and paged by cursor; `format=csv` downloads
         * @description every matching entry (audited).
         */
        get: operations["get_audit_logs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/audit/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every access to one patient folder's data, oldest first: who, role, what, when and from
         * @description where (audited); `format=csv` downloads the whole report.
         */
        get: operations["get_access_report"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/blobs/audit/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log's state: verified up to the latest signed checkpoint, or broken. */
        get: operations["get_audit_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/emergency/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The patient a live emergency grant opens: name, date of birth, files, expiry. */
        get: operations["get_emergency_view"];
        put?: never;
        post?: never;
        /** End emergency access now. */
        delete: operations["delete_end_emergency"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/emergency/session/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether the caller's own grant is still open (the page polls it to end at once when an
         * @description admin disconnects the token); nothing else, and not audited: it reveals no patient data.
         */
        get: operations["get_emergency_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: 200 when the database answers and the file storage takes a write, 503
         * @description otherwise (and once the process is stopping).
         */
        get: operations["get_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: 200 as long as the process answers; touches no database, storage or
         * @description Redis (a dependency's outage must not get every instance restarted).
         */
        get: operations["get_liveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/cover-sheet/{container}/{folder}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A new cover sheet for the folder (PDF, two sides alike): its QR code names the folder and
         * @description a new sheet id under the sheet key's MAC, beside the patient's name, date of birth and
         *     record number. For those who may upload to the folder and the intake permission's holders
         *     (others 403); every print audited `intake_sheet_printed` with its sheet id.
         */
        get: operations["get_cover_sheet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The inbox: a page of items, newest first (status new by default; or filed, deleted,
         * @description all), each with its source, pages, status and suggestion, and its thumbnail's link for
         *     this session (`thumbnailUrl`; null for an item without one).
         */
        get: operations["get_list_items"];
        put?: never;
        /**
         * Upload a batch of scans as multipart/form-data (several `file` parts): each screened
         * @description and taken in as an item (the same content twice: its existing item, `duplicate`; content
         *     the scan or the checks refused: `refused`, nothing kept). The whole body is held to the
         *     upload limit, as one upload's is.
         */
        post: operations["post_upload_batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One item (audited `intake_view`, in the folder it was filed to or suggested for). */
        get: operations["get_get_item"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An item's bytes for its thumbnail and the viewer (sent as every file view is sent:
         * @description inline only for safe types, sandboxed, never cached).
         */
        get: operations["get_item_content"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete an item with a reason (required); 409 when it was filed or deleted already. */
        post: operations["post_delete_item"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * File an item to a patient's folder (the caller must see it: 404 otherwise) under the
         * @description given name or its own; it appears in the folder as an upload does. 409 when someone else
         *     filed or deleted it first (who, when), or the folder has a file of that name.
         */
        post: operations["post_file_item"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn a PDF item's pages (all, or those given) clockwise by 90, 180 or 270 degrees. */
        post: operations["post_rotate_item"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/split": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Split a PDF item into new items by page ranges; the original is deleted (the split its
         * @description reason). 400 for another type or pages it does not have; 409 once filed or deleted.
         */
        post: operations["post_split_item"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/items/{item_id}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An item's thumbnail: page 1 of a PDF, or an image, as a small WebP, the one stored when
         * @description the item was routed or turned, else drawn in the worker pool now (audited `intake_view`,
         *     "thumbnail"), by the session's header or the link the inbox's listing gave
         *     (`thumbnailUrl`, for an <img>). 410 once filed; 422 with the reason for a type without one
         *     (a .docx), one over BFF_PREVIEW_MAX_MB or a document that cannot be drawn (a damaged PDF);
         *     503 when none is stored and the worker pool is full. Kept by the browser only (private), a
         *     few minutes: the link names the item's content version.
         */
        get: operations["get_item_thumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/intake/separator-sheet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The separator sheet (PDF, two sides alike): a batch is split where one lies. It names no
         * @description patient.
         */
        get: operations["get_separator_sheet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/patients/{container}/{folder}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The folder's patient: name, date of birth and record number (each may be null), and who
         * @description last changed them and when (null: no change on record).
         */
        get: operations["get_patient"];
        /** Set the folder's patient (admin and doctors): all three fields; blank clears one. */
        put: operations["put_update_patient"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Files the caller may read whose text or name matches q, best first (audited). 429 past
         * @description the caller's searches per minute, 503 past the search's time budget.
         */
        get: operations["get_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every user with their containers and the number of folders assigned to them. */
        get: operations["get_list_users"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One user with assignments. */
        get: operations["get_get_user"];
        /** Update a user; changing role or password signs them out everywhere. */
        put: operations["put_update_user"];
        post?: never;
        /** Delete a user, their sessions and their assignments. */
        delete: operations["delete_delete_user"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/mfa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove every second factor of a user (a lost phone) and end their sessions. */
        delete: operations["delete_reset_second_factor"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's single sign-on: the provider's subject linked, a pending "link at next
         * @description sign-in", and the subjects seen lately without a link (to pick one).
         */
        get: operations["get_sso_account"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/sso-expected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Issue a one-time link code for the user (a week; a new one replaces theirs; never an
         * @description admin account), shown in this answer only: the person enters it after signing in through
         *     the provider, which links that sign-in to the account. Audited; a step-up change.
         */
        put: operations["put_sso_expect"];
        post?: never;
        /** Withdraw a user's pending "link at next sign-in" (audited). */
        delete: operations["delete_sso_cancel_expected"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/sso-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Link a user to the provider's subject an admin entered or picked (audited; a step-up
         * @description change: it gives whoever holds that subject the account).
         */
        put: operations["put_sso_bind"];
        post?: never;
        /**
         * Remove a user's link to the identity provider (audited). Not a step-up change: it
         * @description takes access away, never gives it.
         */
        delete: operations["delete_sso_unlink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Admin dashboard data: recent users and counts by role. */
        get: operations["get_dashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/with-assignments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every user with all their container and folder assignments (large at scale). */
        get: operations["get_list_users_with_assignments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Interactive documentation of the API. */
        get: operations["get_docs_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{filename}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Swagger UI's own files. */
        get: operations["get_docs_assets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/init.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Starts Swagger UI on /openapi.json. */
        get: operations["get_docs_init"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text format): only from BFF_METRICS_ALLOW or with the bearer
         * @description token BFF_METRICS_TOKEN.
         */
        get: operations["get_prometheus_metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/assign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give a token to a patient folder (a folder linked to another token moves to this one). */
        post: operations["post_assign_token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/assigned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tokens given to patients: active (assigned) and revoked. */
        get: operations["get_assigned_tokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/assigned-folders/{container}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Which folders of a container are linked to a token, and to which. */
        get: operations["get_assigned_folders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/delete/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a token permanently, with a reason (in the JSON body). */
        delete: operations["delete_delete_token"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a revoked token work again for its patient. */
        post: operations["post_reactivate_token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a device as an unclaimed token: with `sun`, an NTAG 424 DNA tag (its URL
         * @description template, SDM offsets and any generated key are shown only here), else a static link.
         */
        post: operations["post_register_token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remote disconnect: the device's link stops working at once. */
        post: operations["post_revoke_token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/patients/admin/unclaimed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tokens not yet given to a patient. */
        get: operations["get_unclaimed_tokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AssignedFolder
         * @description A folder in the non-admin assignment view.
         */
        AssignedFolder: {
            /** Foldername */
            folderName: string;
            /** Id */
            id: number;
        };
        /**
         * Assignment
         * @description A container assigned to the caller, with the folders assigned in it.
         */
        Assignment: {
            /** Containername */
            containerName: string;
            /** Folders */
            folders: components["schemas"]["AssignedFolder"][];
            /** Id */
            id: number;
        };
        /**
         * AuditBreak
         * @description A break the server's periodic verification found in the audit log.
         */
        AuditBreak: {
            /** Entryid */
            entryId: number;
            /**
             * Foundat
             * Format: date-time
             */
            foundAt: string;
            /** Reason */
            reason: string;
        };
        /**
         * AuditEntry
         * @description One audit log entry (spec section 3, plus who and from where).
         */
        AuditEntry: {
            /** Blobname */
            blobName: string;
            /** Clientaddress */
            clientAddress: string;
            /** Containername */
            containerName: string;
            /** Details */
            details: string;
            /** Foldername */
            folderName: string;
            /** Id */
            id: number;
            /** Name */
            name: string;
            /** Operation */
            operation: string;
            /** Role */
            role: string;
            /**
             * Timestamp
             * Format: date-time
             */
            timestamp: string;
            /** Userid */
            userId: number | null;
        };
        /**
         * Blob
         * @description One file of a patient folder.
         */
        Blob: {
            /**
             * Activecontent
             * @description A PDF's active content the content checks found, named and comma-separated ("JavaScript, launch actions, embedded files"); "" when none (BFF_PDF_ACTIVE_CONTENT)
             * @default
             */
            activeContent: string;
            /** Contentlength */
            contentLength: number;
            /** Contenttype */
            contentType: string;
            /**
             * Displayable
             * @description false for a damaged PDF kept by BFF_DAMAGED_PDF=keep: it cannot be displayed (no viewer, no thumbnail), only downloaded
             * @default true
             */
            displayable: boolean;
            /** Isconvertedfromrtf */
            isConvertedFromRtf: boolean;
            /** Isprofileimage */
            isProfileImage: boolean;
            /**
             * Lastmodified
             * Format: date-time
             */
            lastModified: string;
            /** Name */
            name: string;
            /** Originalrtffilename */
            originalRtfFileName: string | null;
            /**
             * Preview
             * @description A signed short-lived link to the file's thumbnail (WebP, 256 px on its long side) for this session; null while there is none (not made yet, or not possible for this file). `file:preview` tells the folder's room when one is ready.
             * @default null
             */
            preview: string | null;
            /**
             * Previewstate
             * @description Whether the file's thumbnail is made: pending (`file:preview` follows), ready, failed (none will be), or null when the file's type has none
             * @default null
             */
            previewState: ("pending" | "ready" | "failed") | null;
            /**
             * Scanstate
             * @description The malware scan: clean (clamd found nothing), held (stored while the scanner was unavailable, BFF_SCAN_UNAVAILABLE=hold: not scanned yet), or unscanned (no scanner configured, or stored before scanning existed)
             * @default unscanned
             * @enum {string}
             */
            scanState: "unscanned" | "clean" | "held";
            /**
             * @description Where the content came from when the intake filed it (the scanner, the mailbox and its sender, an upload to the intake; by a cover sheet or a person); null for a file uploaded to its folder, and in the emergency view
             * @default null
             */
            source: components["schemas"]["FileSource"] | null;
            /**
             * Textproblem
             * @description Why the file's text could not be read (textState failed)
             * @default null
             */
            textProblem: string | null;
            /**
             * Textstate
             * @description Whether the file's text is searchable: pending (being read), ready, failed (textProblem says why), or null when the file's content is not searched (profile images, other types)
             * @default null
             */
            textState: ("pending" | "ready" | "failed") | null;
            /**
             * Versioncount
             * @description How many versions the file has, the current one included
             * @default 1
             */
            versionCount: number;
        };
        /**
         * ContainerAssignmentOut
         * @description A container assigned to a user.
         */
        ContainerAssignmentOut: {
            /** Containername */
            containerName: string;
            /** Id */
            id: number;
        };
        /**
         * DashboardStats
         * @description Counts on the admin dashboard.
         */
        DashboardStats: {
            /** Assistants */
            assistants: number;
            /** Doctors */
            doctors: number;
            /** Nurses */
            nurses: number;
            /** Totalusers */
            totalUsers: number;
        };
        /**
         * DeletedOut
         * @description Who deleted an item, when and why.
         */
        DeletedOut: {
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** By */
            by: string;
            /** Reason */
            reason: string;
        };
        /**
         * EnrolmentLoginResponse
         * @description A restricted session: the user's role needs a second factor and they have none yet,
         *     so it may only set one up (BFF_MFA_REQUIRED_ROLES).
         */
        EnrolmentLoginResponse: {
            /** Mfaenrolmentrequired */
            mfaEnrolmentRequired: boolean;
            /** Token */
            token: string;
            user: components["schemas"]["TokenUser"];
        };
        /**
         * FiledOut
         * @description Where an item was filed, under which name, by whom and when.
         */
        FiledOut: {
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** By */
            by: string;
            /** Container */
            container: string;
            /** Folder */
            folder: string;
            /** Name */
            name: string;
        };
        /**
         * FileSource
         * @description Where a file's content came from when the intake filed it (bff/files/sources.py).
         */
        FileSource: {
            /**
             * Coversheet
             * @description Filed automatically by the folder's cover sheet; false: a person filed it from the intake's inbox
             * @default false
             */
            coverSheet: boolean;
            /**
             * Kind
             * @description scanner: the scan folder (scanners, fax servers); mailbox: the intake's mailbox (sender says who sent it); upload: a batch uploaded to the Intake page
             * @enum {string}
             */
            kind: "scanner" | "mailbox" | "upload";
            /**
             * Sender
             * @description kind mailbox: the mail's sender address
             * @default null
             */
            sender: string | null;
        };
        /**
         * FileType
         * @description A kind of file a search may be narrowed to (by the file's extension).
         * @enum {string}
         */
        FileType: "pdf" | "image" | "word" | "text";
        /**
         * FolderAssignmentOut
         * @description A folder assigned to a user.
         */
        FolderAssignmentOut: {
            /** Containername */
            containerName: string;
            /** Foldername */
            folderName: string;
            /** Id */
            id: number;
        };
        /**
         * FolderStats
         * @description Files of one assigned folder.
         */
        FolderStats: {
            /** Containername */
            containerName: string;
            /** Filetypes */
            fileTypes: {
                [key: string]: number;
            };
            /** Foldername */
            folderName: string;
            /**
             * @description The folder's patient, when known (the paged list only)
             * @default null
             */
            patient: components["schemas"]["PatientDetails"] | null;
            /** Totalfiles */
            totalFiles: number;
        };
        /**
         * IntakeItemOut
         * @description An item as the inbox shows it. The source's details (file name, a mail's sender,
         *     subject and Message-ID) are for intake holders only, as every intake route is.
         *     suggestion: a patient suggested with its evidence (bff/intake/suggest.py), null for none.
         *     routing: pending until routed (bff/intake/routing.py), claimed while a process routes it,
         *     done; problems: what the routing found a person should know (a cover sheet that did not
         *     verify, a folder gone...).
         */
        IntakeItemOut: {
            /** Contenttype */
            contentType: string;
            /** Contenturl */
            contentUrl: string;
            /** @default null */
            deleted: components["schemas"]["DeletedOut"] | null;
            /** @default null */
            filed: components["schemas"]["FiledOut"] | null;
            /** Filename */
            fileName: string;
            /** Id */
            id: number;
            /** Messageid */
            messageId: string;
            /** Pages */
            pages: number | null;
            /**
             * Problems
             * @default []
             */
            problems: string[];
            /**
             * Receivedat
             * Format: date-time
             */
            receivedAt: string;
            /** Receivedby */
            receivedBy: string;
            /**
             * Routing
             * @default done
             * @enum {string}
             */
            routing: "pending" | "claimed" | "done";
            /** Sender */
            sender: string;
            /** Size */
            size: number;
            /**
             * Source
             * @enum {string}
             */
            source: "scanner" | "mailbox" | "upload";
            /**
             * Status
             * @enum {string}
             */
            status: "new" | "filed" | "deleted";
            /** Subject */
            subject: string;
            /** Suggestion */
            suggestion: {
                [key: string]: unknown;
            } | null;
            /**
             * Thumbnailurl
             * @default null
             */
            thumbnailUrl: string | null;
        };
        /**
         * LoginResponse
         * @description A new session token and its user.
         */
        LoginResponse: {
            /** Token */
            token: string;
            user: components["schemas"]["TokenUser"];
        };
        /**
         * MfaRequiredResponse
         * @description The password was right and the user has a second factor: no session yet, but a
         *     single-use mfaToken (5 minutes) for POST /api/auth/login/mfa.
         */
        MfaRequiredResponse: {
            /** Methods */
            methods: ("totp" | "webauthn" | "recovery")[];
            /** Mfarequired */
            mfaRequired: boolean;
            /** Mfatoken */
            mfaToken: string;
        };
        /**
         * PasskeyOut
         * @description One passkey of the caller.
         */
        PasskeyOut: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Id */
            id: number;
            /** Label */
            label: string;
            /** Lastusedat */
            lastUsedAt: string | null;
        };
        /**
         * PatientDetails
         * @description A folder's patient: name, date of birth (YYYY-MM-DD) and record number, each optional.
         */
        PatientDetails: {
            /**
             * Dateofbirth
             * @default null
             */
            dateOfBirth: string | null;
            /**
             * Name
             * @default null
             */
            name: string | null;
            /**
             * Recordnumber
             * @default null
             */
            recordNumber: string | null;
        };
        /**
         * ProfileImageProcessing
         * @description The standard name a processed profile image was stored under.
         */
        ProfileImageProcessing: {
            /**
             * Standardname
             * @default null
             */
            standardName: string | null;
        };
        /**
         * QuarantinedOut
         * @description Content the scanner found, kept apart: where it was going, what was found, who sent
         *     it and when; reason: upload (found as it came in) or rescan (found by a later scan: of a
         *     held, never scanned or recent file).
         */
        QuarantinedOut: {
            /** Container */
            container: string;
            /** Folder */
            folder: string;
            /**
             * Foundat
             * Format: date-time
             */
            foundAt: string;
            /** Id */
            id: number;
            /**
             * Kept
             * @description Whether its bytes are kept (false: storage failed)
             */
            kept: boolean;
            /** Name */
            name: string;
            /**
             * Reason
             * @enum {string}
             */
            reason: "upload" | "rescan";
            /** Signature */
            signature: string;
            /** Size */
            size: number;
            /** Uploadedbyid */
            uploadedById: number | null;
            /** Uploadedbyname */
            uploadedByName: string;
        };
        /**
         * RtfConversion
         * @description Whether an RTF upload was converted, and the name of the text file it became.
         */
        RtfConversion: {
            /** Converted */
            converted: boolean;
            /**
             * Txtfilename
             * @default null
             */
            txtFileName: string | null;
        };
        /**
         * SearchResult
         * @description A file that matched.
         */
        SearchResult: {
            /** Blobname */
            blobName: string;
            /** Containername */
            containerName: string;
            /** Contenttype */
            contentType: string;
            /** Foldername */
            folderName: string;
            /**
             * Lastmodified
             * Format: date-time
             */
            lastModified: string;
            /**
             * Page
             * @description The page the snippet is from (text matches)
             * @default null
             */
            page: number | null;
            /**
             * @description The folder's patient (null when nothing is known of them)
             * @default null
             */
            patient: components["schemas"]["PatientDetails"] | null;
            snippet: components["schemas"]["Snippet"];
        };
        /**
         * SeenSubject
         * @description A subject that signed in at the provider lately and is linked to no account, with what
         *     its claims said (they are the provider's to change: check before picking).
         */
        SeenSubject: {
            /** Name */
            name: string;
            /**
             * Seenat
             * Format: date-time
             */
            seenAt: string;
            /** Subject */
            subject: string;
            /** Username */
            username: string;
        };
        /**
         * SmartTokenOut
         * @description A SmartToken as admins see it.
         */
        SmartTokenOut: {
            /** Assignedat */
            assignedAt: string | null;
            /** Containername */
            containerName: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Foldername */
            folderName: string | null;
            kind: components["schemas"]["TokenKind"];
            /** Lasttapat */
            lastTapAt: string | null;
            /** Lasttapcounter */
            lastTapCounter: number | null;
            /** Patientdateofbirth */
            patientDateOfBirth: string | null;
            /** Patientname */
            patientName: string | null;
            /** Revokereason */
            revokeReason: string | null;
            /** Securechipid */
            secureChipId: string;
            /** Smarttokenid */
            smartTokenId: string;
            /** Status */
            status: string;
            /** Sunuid */
            sunUid: string | null;
        };
        /**
         * Snippet
         * @description Plain text around the best match (or the matching name), and where the matches are.
         */
        Snippet: {
            /**
             * Highlights
             * @description [start, end) of each match in text, in UTF-16 code units (String.slice)
             */
            highlights: number[][];
            /** Text */
            text: string;
        };
        /**
         * SummaryStats
         * @description Files over all of the caller's assigned folders.
         */
        SummaryStats: {
            /** Containercount */
            containerCount: number;
            /** Filetypes */
            fileTypes: {
                [key: string]: number;
            };
            /** Foldercount */
            folderCount: number;
            /** Totalfiles */
            totalFiles: number;
        };
        /**
         * SunPersonalisation
         * @description What to write to a SUN tag: the NDEF URL with placeholders and the SDM offsets in the
         *     NDEF file (the URL written whole, one URI record with identifier code 0x00). The
         *     generated file-read key is shown here once; a key given at registration is not echoed.
         */
        SunPersonalisation: {
            /** Filereadkey */
            fileReadKey: string | null;
            /** Macoffset */
            macOffset: number;
            /** Piccdataoffset */
            piccDataOffset: number;
            /** Uid */
            uid: string;
            /** Urltemplate */
            urlTemplate: string;
        };
        /**
         * SunTag
         * @description An NTAG 424 DNA tag: its 7-byte UID, and its SDM file-read key when personalised
         *     elsewhere (else the server generates one).
         */
        SunTag: {
            /**
             * Filereadkey
             * @default null
             */
            fileReadKey: string | null;
            /** Uid */
            uid: string;
        };
        /**
         * TextMatch
         * @description A match: the words [start, end) of a page's words.
         */
        TextMatch: {
            /** End */
            end: number;
            /** Page */
            page: number;
            /** Start */
            start: number;
        };
        /**
         * TokenFolderLink
         * @description The token linked to a folder.
         */
        TokenFolderLink: {
            /** Patientname */
            patientName: string | null;
            /** Status */
            status: string;
            /** Tokenid */
            tokenId: string;
        };
        /**
         * TokenKind
         * @description How a token's taps are checked.
         * @enum {string}
         */
        TokenKind: "sun" | "static";
        /**
         * TokenUser
         * @description The user object a session token carries.
         */
        TokenUser: {
            /** Id */
            id: number;
            /**
             * Intake
             * @description May use the intake (issue 51): admins, and staff an admin granted it
             * @default false
             */
            intake: boolean;
            /** Name */
            name: string;
            /** Role */
            role: string;
            /** Userid */
            userId: number;
            /** Username */
            username: string;
        };
        /**
         * TrashedBlob
         * @description A file in its folder's trash.
         */
        TrashedBlob: {
            /** Contentlength */
            contentLength: number;
            /** Contenttype */
            contentType: string;
            /**
             * Deletedat
             * Format: date-time
             */
            deletedAt: string;
            deletedBy: components["schemas"]["Uploader"];
            /** Isprofileimage */
            isProfileImage: boolean;
            /** Name */
            name: string;
            /**
             * Purgeafter
             * Format: date-time
             */
            purgeAfter: string;
            /** Versioncount */
            versionCount: number;
        };
        /**
         * UploadedItem
         * @description One file of an uploaded batch, in the order sent: its item and whether that content
         *     was already in the intake (the same bytes are never taken twice: the existing item is
         *     answered), or why it was refused (the malware scan, the content checks: nothing kept).
         */
        UploadedItem: {
            /**
             * Duplicate
             * @default false
             */
            duplicate: boolean;
            /** Filename */
            fileName: string;
            /** @default null */
            item: components["schemas"]["IntakeItemOut"] | null;
            /**
             * Refused
             * @default null
             */
            refused: string | null;
        };
        /**
         * Uploader
         * @description Who uploaded (or deleted) a file's content: the name and role at the time.
         */
        Uploader: {
            /** Name */
            name: string;
            /** Role */
            role: string;
        };
        /**
         * UserDetail
         * @description A user on the admin's user page: also whether they have a second factor.
         */
        UserDetail: {
            /** Containerassignments */
            containerAssignments: components["schemas"]["ContainerAssignmentOut"][];
            /** Folderassignments */
            folderAssignments: components["schemas"]["FolderAssignmentOut"][];
            /** Id */
            id: number;
            /**
             * Intake
             * @default false
             */
            intake: boolean;
            /** Name */
            name: string;
            /**
             * Role
             * @enum {string}
             */
            role: "admin" | "doctor" | "nurse" | "assistant";
            /** Secondfactor */
            secondFactor: boolean;
            /**
             * Ssolinked
             * @default false
             */
            ssoLinked: boolean;
            /** Userid */
            userId: number;
            /** Username */
            username: string;
        };
        /**
         * UserOut
         * @description A user as the web app sees it, with every folder assigned to them (never the password).
         */
        UserOut: {
            /** Containerassignments */
            containerAssignments: components["schemas"]["ContainerAssignmentOut"][];
            /** Folderassignments */
            folderAssignments: components["schemas"]["FolderAssignmentOut"][];
            /** Id */
            id: number;
            /** Name */
            name: string;
            /**
             * Role
             * @enum {string}
             */
            role: "admin" | "doctor" | "nurse" | "assistant";
            /** Userid */
            userId: number;
            /** Username */
            username: string;
        };
        /**
         * UserSummary
         * @description A user in the users list: their containers, and how many folders they are assigned.
         *
         *     The folders themselves are left out: with hundreds of folders a member of staff the full
         *     list runs to megabytes, and the screens that list users show only the count. One user's
         *     folders: GET /api/users/{id}; everyone's: GET /api/users/with-assignments.
         */
        UserSummary: {
            /** Containerassignments */
            containerAssignments: components["schemas"]["ContainerAssignmentOut"][];
            /** Foldercount */
            folderCount: number;
            /** Id */
            id: number;
            /**
             * Intake
             * @default false
             */
            intake: boolean;
            /** Name */
            name: string;
            /**
             * Role
             * @enum {string}
             */
            role: "admin" | "doctor" | "nurse" | "assistant";
            /** Secondfactor */
            secondFactor: boolean;
            /** Userid */
            userId: number;
            /** Username */
            username: string;
        };
        /**
         * VersionOut
         * @description One version of a file (the current one included).
         */
        VersionOut: {
            /**
             * Activecontent
             * @description As the file's Blob: this content's
             * @default
             */
            activeContent: string;
            /** Contentlength */
            contentLength: number;
            /** Contenttype */
            contentType: string;
            /** Current */
            current: boolean;
            /**
             * Displayable
             * @description As the file's Blob: this content's
             * @default true
             */
            displayable: boolean;
            /**
             * Lastmodified
             * Format: date-time
             */
            lastModified: string;
            /**
             * @description As the file's Blob: this content's
             * @default null
             */
            source: components["schemas"]["FileSource"] | null;
            uploadedBy: components["schemas"]["Uploader"];
            /** Versionid */
            versionId: string;
        };
        /**
         * WordBox
         * @description A word on a page and where it is.
         */
        WordBox: {
            /**
             * Box
             * @description [x0, y0, x1, y1] in fractions (0..1) of the page's width and height as shown, origin top-left
             */
            box: number[];
            /** Text */
            text: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    post_create_container: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Name */
                    name: string;
                };
            };
        };
        responses: {
            /** @description A created container. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Containername */
                        containerName: string;
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_create_folder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Name */
                    name: string;
                };
            };
        };
        responses: {
            /** @description A created folder. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Containername */
                        containerName: string;
                        /** Foldername */
                        folderName: string;
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_list_quarantine: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first, with the total. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Page */
                        page: number;
                        /** Pagesize */
                        pageSize: number;
                        /** Quarantined */
                        quarantined: components["schemas"]["QuarantinedOut"][];
                        /** Total */
                        total: number;
                    };
                };
            };
        };
    };
    delete_delete_quarantined: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                quarantine_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_scanning: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description configured: a scanner is set (BFF_CLAMD); available: it answered PING just now (null
             *     when none is configured); unavailable: what happens to uploads while it is not (refuse or
             *     hold); quarantined: contents kept in quarantine; held: files stored held, not yet scanned.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Available */
                        available: boolean | null;
                        /** Configured */
                        configured: boolean;
                        /** Held */
                        held: number;
                        /** Quarantined */
                        quarantined: number;
                        /**
                         * Unavailable
                         * @enum {string}
                         */
                        unavailable: "refuse" | "hold";
                    };
                };
            };
        };
    };
    delete_unassign: {
        parameters: {
            query?: {
                type?: "container" | "folder";
            };
            header?: never;
            path: {
                assignment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_list_containers: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number | null;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Container names in natural order, with the total matching the search. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Containers */
                        containers: string[];
                        /** Page */
                        page: number;
                        /** Pagesize */
                        pageSize: number | null;
                        /** Total */
                        total: number;
                    };
                };
            };
        };
    };
    get_list_folders: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number | null;
                q?: string;
            };
            header?: never;
            path: {
                container: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Folder names in natural order, with the total matching the search (a folder's name, or
             *     its patient's name, record number or date of birth).
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Approximate
                         * @description True when no folder matched the search as typed and these are the names within one typo of it: the closest names, never to be opened as the one asked for
                         * @default false
                         */
                        approximate: boolean;
                        /** Folders */
                        folders: string[];
                        /** Page */
                        page: number;
                        /** Pagesize */
                        pageSize: number | null;
                        /**
                         * Patients
                         * @description The patient of each listed folder that has one, by folder name
                         */
                        patients?: {
                            [key: string]: components["schemas"]["PatientDetails"];
                        };
                        /** Total */
                        total: number;
                    };
                };
            };
        };
    };
    post_assign_folders: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Foldernames */
                    folderNames: string[];
                    /** Userid */
                    userId: number;
                };
            };
        };
        responses: {
            /** @description The result of assigning folders: the new ones and those the user already had. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Alreadyassigned */
                        alreadyAssigned: string[];
                        /** Assigned */
                        assigned: components["schemas"]["FolderAssignmentOut"][];
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_assign_container: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The result of assigning a container. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        assignment: components["schemas"]["ContainerAssignmentOut"];
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_my_assignments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/assignments/my-assignments. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Assignments */
                        assignments: components["schemas"]["Assignment"][];
                    };
                };
            };
        };
    };
    get_my_folders: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number | null;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description GET /api/assignments/my-assignments/folders: one page of the caller's folders in every
             *     container, by container then folder in natural order, with the total matching the search.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Approximate
                         * @description True when no folder matched the search as typed and these are the names within one typo of it: the closest names, never to be opened as the one asked for
                         * @default false
                         */
                        approximate: boolean;
                        /** Folders */
                        folders: components["schemas"]["FolderStats"][];
                        /** Page */
                        page: number;
                        /** Pagesize */
                        pageSize: number | null;
                        /** Total */
                        total: number;
                    };
                };
            };
        };
    };
    get_my_assignment_stats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/assignments/my-assignments/stats: one request instead of one per folder. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Folders
                         * @description Every assigned folder, in the order of my-assignments
                         */
                        folders: components["schemas"]["FolderStats"][];
                        summary: components["schemas"]["SummaryStats"];
                    };
                };
            };
        };
    };
    get_user_assignments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/assignments/users/{userId}. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Containerassignments */
                        containerAssignments: components["schemas"]["ContainerAssignmentOut"][];
                        /** Folderassignments */
                        folderAssignments: components["schemas"]["FolderAssignmentOut"][];
                    };
                };
            };
        };
    };
    post_confirm_identity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Code
                     * @default null
                     */
                    code?: string | null;
                    /**
                     * Password
                     * @default null
                     */
                    password?: string | null;
                };
            };
        };
        responses: {
            /**
             * @description The session counts as recently authenticated; `stepUp`: a one-use proof for the
             *     `x-step-up` header of one sensitive request within `expiresIn` seconds (the only way when
             *     BFF_REAUTH_MINUTES is 0).
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Expiresin */
                        expiresIn: number;
                        /** Message */
                        message: string;
                        /** Stepup */
                        stepUp: string;
                    };
                };
            };
        };
    };
    post_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Password */
                    password: string;
                    /** Username */
                    username: string;
                };
            };
        };
        responses: {
            /** @description POST /api/auth/login: a session, a restricted session, or the second step's token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrolmentLoginResponse"] | components["schemas"]["LoginResponse"] | components["schemas"]["MfaRequiredResponse"];
                };
            };
        };
    };
    post_login_mfa: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Code
                     * @default null
                     */
                    code?: string | null;
                    /** Mfatoken */
                    mfaToken: string;
                    /**
                     * Webauthn
                     * @default null
                     */
                    webauthn?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description A session token and its user, as a plain sign-in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Token */
                        token: string;
                        user: components["schemas"]["TokenUser"];
                    };
                };
            };
        };
    };
    post_login_passkey_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Mfatoken */
                    mfaToken: string;
                };
            };
        };
        responses: never;
    };
    post_logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description POST /api/auth/logout: for a session opened through the identity provider, where the
             *     browser goes next to sign out there too (its end-session endpoint), else null.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Endsessionurl
                         * @default null
                         */
                        endSessionUrl: string | null;
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_logout_all: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description POST /api/auth/logout-all. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        /** Sessionsended */
                        sessionsEnded: number;
                    };
                };
            };
        };
    };
    get_me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/auth/me. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["UserOut"];
                    };
                };
            };
        };
    };
    get_mfa_status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/auth/mfa. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Passkeys */
                        passkeys: components["schemas"]["PasskeyOut"][];
                        /** Recoverycodesleft */
                        recoveryCodesLeft: number;
                        /** Totp */
                        totp: boolean;
                    };
                };
            };
        };
    };
    post_regenerate_recovery_codes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description New single-use recovery codes (shown once); `token`: a full session, when confirmed
             *     from a restricted one.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Recoverycodes */
                        recoveryCodes: string[];
                        /**
                         * Token
                         * @default null
                         */
                        token: string | null;
                    };
                };
            };
        };
    };
    post_start_totp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description POST /api/auth/mfa/totp: a pending authenticator seed, to show as a QR code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Otpauthurl */
                        otpauthUrl: string;
                        /** Secret */
                        secret: string;
                    };
                };
            };
        };
    };
    delete_remove_totp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_confirm_totp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Code */
                    code: string;
                };
            };
        };
        responses: {
            /**
             * @description New single-use recovery codes (shown once); `token`: a full session, when confirmed
             *     from a restricted one.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Recoverycodes */
                        recoveryCodes: string[];
                        /**
                         * Token
                         * @default null
                         */
                        token: string | null;
                    };
                };
            };
        };
    };
    delete_remove_passkey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                passkey_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_register_passkey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Credential */
                    credential: {
                        [key: string]: unknown;
                    };
                    /**
                     * Label
                     * @default Passkey
                     */
                    label?: string;
                };
            };
        };
        responses: {
            /**
             * @description A registered passkey; recoveryCodes when it is the first factor, token when registered
             *     from a restricted session.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Id */
                        id: number;
                        /** Label */
                        label: string;
                        /**
                         * Recoverycodes
                         * @default null
                         */
                        recoveryCodes: string[] | null;
                        /**
                         * Token
                         * @default null
                         */
                        token: string | null;
                    };
                };
            };
        };
    };
    post_passkey_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_sso_backchannel_logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description POST /api/auth/oidc/backchannel-logout. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Sessionsended */
                        sessionsEnded: number;
                    };
                };
            };
        };
    };
    get_sso_callback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_sso_complete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Code */
                    code: string;
                };
            };
        };
        responses: {
            /** @description POST /api/auth/login: a session, a restricted session, or the second step's token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrolmentLoginResponse"] | components["schemas"]["LoginResponse"] | components["schemas"]["MfaRequiredResponse"];
                };
            };
        };
    };
    get_sso_config: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/auth/oidc/config: what the login page shows. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Displayname */
                        displayName: string;
                        /** Enabled */
                        enabled: boolean;
                        /**
                         * Localpasswords
                         * @enum {string}
                         */
                        localPasswords: "all" | "admins" | "none";
                    };
                };
            };
        };
    };
    post_sso_link: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Code */
                    code: string;
                    /** Password */
                    password: string;
                    /** Username */
                    username: string;
                };
            };
        };
        responses: {
            /** @description POST /api/auth/login: a session, a restricted session, or the second step's token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrolmentLoginResponse"] | components["schemas"]["LoginResponse"] | components["schemas"]["MfaRequiredResponse"];
                };
            };
        };
    };
    post_sso_link_code: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Code */
                    code: string;
                    /** Linkcode */
                    linkCode: string;
                };
            };
        };
        responses: {
            /** @description POST /api/auth/login: a session, a restricted session, or the second step's token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrolmentLoginResponse"] | components["schemas"]["LoginResponse"] | components["schemas"]["MfaRequiredResponse"];
                };
            };
        };
    };
    get_sso_start: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_register: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Name */
                    name: string;
                    /** Password */
                    password: string;
                    /**
                     * Role
                     * @default doctor
                     * @enum {string}
                     */
                    role?: "doctor" | "nurse" | "assistant";
                    /** Username */
                    username: string;
                };
            };
        };
        responses: {
            /** @description The result of creating a user. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        user: components["schemas"]["UserOut"];
                    };
                };
            };
        };
    };
    get_validate_token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/auth/validate-token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["TokenUser"];
                        /** Valid */
                        valid: boolean;
                    };
                };
            };
        };
    };
    get_list_files: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A folder's files sorted by name, and whether it has a profile image. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Blobs */
                        blobs: components["schemas"]["Blob"][];
                        /** Hasprofileimage */
                        hasProfileImage: boolean;
                        /**
                         * Maxuploadbytes
                         * @description The upload limit (BFF_MAX_UPLOAD_MB) in bytes, in the staff listing: the web app refuses a larger file before sending it (the server still checks)
                         * @default null
                         */
                        maxUploadBytes: number | null;
                    };
                };
            };
        };
    };
    post_upload: {
        parameters: {
            query?: {
                overwrite?: boolean;
            };
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The result of an upload (spec section 3), with the stored file. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        blob: components["schemas"]["Blob"];
                        /** Message */
                        message: string;
                        profileImageProcessing: components["schemas"]["ProfileImageProcessing"];
                        /** Replaced */
                        replaced: boolean;
                        rtfConversion: components["schemas"]["RtfConversion"];
                    };
                };
            };
        };
    };
    delete_delete_file: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_thumbnail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_view_link: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A short-lived signed link that opens one file for the caller's session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Expiresat
                         * Format: date-time
                         */
                        expiresAt: string;
                        /** Url */
                        url: string;
                    };
                };
            };
        };
    };
    get_list_versions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A file's versions, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Versions */
                        versions: components["schemas"]["VersionOut"][];
                    };
                };
            };
        };
    };
    post_restore_version: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_version_link: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A short-lived signed link that opens one file for the caller's session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Expiresat
                         * Format: date-time
                         */
                        expiresAt: string;
                        /** Url */
                        url: string;
                    };
                };
            };
        };
    };
    get_view_version: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_view_file: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_open_viewer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description A file opened in the in-app viewer (one audited view): what to show and the links of
             *     this viewer session, valid until expiresAt, for this content version only.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Activecontent
                         * @description As the Blob's: the PDF's active content, named, for the viewer's warning; "" when none
                         * @default
                         */
                        activeContent: string;
                        /** Contentlength */
                        contentLength: number;
                        /** Contenttype */
                        contentType: string;
                        /**
                         * Displayable
                         * @description As the Blob's: false for a damaged file kept (kind other, reason says)
                         * @default true
                         */
                        displayable: boolean;
                        /**
                         * Expiresat
                         * Format: date-time
                         */
                        expiresAt: string;
                        /**
                         * Findurl
                         * @description textLayer: append &q=<the words, URL-encoded> to find them in the document (TextMatches), under this viewer session's link until expiresAt
                         * @default null
                         */
                        findUrl: string | null;
                        /**
                         * Htmlurl
                         * @description kind html: the document as one HTML page the server rendered and sanitised (no script, no remote resource, images only as data: URIs), served with a CSP of its own (sandbox; framed by the app only)
                         * @default null
                         */
                        htmlUrl: string | null;
                        /**
                         * Imagereduced
                         * @description The image has more pixels than the viewer hands to a browser: imageUrl is a reduced copy the server rendered (WebP, at most 2000 px on its long side); the original, every pixel, is a download (originalDownload)
                         * @default false
                         */
                        imageReduced: boolean;
                        /**
                         * Imageurl
                         * @default null
                         */
                        imageUrl: string | null;
                        /**
                         * Kind
                         * @description pdf: pages as images (pageUrl); image: imageUrl; text: textUrl (the file's text; an RTF's text as the server read it); html: htmlUrl (a Word .docx as a sanitised HTML page, for a sandboxed frame); other: a card with Open original (reason says why when it is a file the viewer could not show)
                         * @enum {string}
                         */
                        kind: "image" | "pdf" | "text" | "html" | "other";
                        /** Name */
                        name: string;
                        /**
                         * Originaldownload
                         * @description An image whose header says more pixels than a browser is given to decode (12 megapixels), or does not say: the view routes send its original only as a download (Content-Disposition: attachment), never shown in a tab
                         * @default false
                         */
                        originalDownload: boolean;
                        /**
                         * Pagecount
                         * @default null
                         */
                        pageCount: number | null;
                        /**
                         * Pageurl
                         * @description A template: replace {page} (1..pageCount) and {width} (CSS pixels times the device pixel ratio, 200-2000; snapped up to one of pageWidths) to get a page as WebP
                         * @default null
                         */
                        pageUrl: string | null;
                        /**
                         * Pagewidths
                         * @description The widths pages are rendered at
                         */
                        pageWidths: number[];
                        /**
                         * Reason
                         * @default null
                         */
                        reason: string | null;
                        /**
                         * Textlayer
                         * @description Words with their boxes are stored for this version (a PDF's, an image's): wordsUrl and findUrl answer
                         * @default false
                         */
                        textLayer: boolean;
                        /**
                         * Texturl
                         * @default null
                         */
                        textUrl: string | null;
                        /**
                         * Versionid
                         * @description The content version these links show
                         */
                        versionId: string;
                        /**
                         * Wordsurl
                         * @description textLayer: a template, replace {page} (1..) to get a page's words with their boxes (PageWords), under this viewer session's link until expiresAt
                         * @default null
                         */
                        wordsUrl: string | null;
                    };
                };
            };
        };
    };
    get_viewer_content: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_viewer_copied: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Characters */
                    characters: number;
                    /** Page */
                    page: number;
                };
            };
        };
        responses: never;
    };
    get_viewer_find: {
        parameters: {
            query?: {
                /** @description Words (all on a page), "a phrase", -excluded, prefix* */
                q?: string;
            };
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document's matches, in page then word order, at most 1000. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Capped
                         * @description True when there are more than the 1000 listed
                         */
                        capped: boolean;
                        /** Matches */
                        matches: components["schemas"]["TextMatch"][];
                        /**
                         * Partial
                         * @description True when the find ran out of its time (a few seconds) before the document's end: the matches found so far, in the pages read
                         * @default false
                         */
                        partial: boolean;
                        /**
                         * Total
                         * @description How many matches are listed
                         */
                        total: number;
                    };
                };
            };
        };
    };
    get_viewer_html: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_viewer_image: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_viewer_text: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_viewer_words: {
        parameters: {
            query?: {
                page?: number;
            };
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page's words with their boxes, in reading order (an image's page is 1). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Page */
                        page: number;
                        /** Words */
                        words: components["schemas"]["WordBox"][];
                    };
                };
            };
        };
    };
    get_profile_image: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_list_trash: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A folder's trash, most recently deleted first, and how long files stay in it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Blobs */
                        blobs: components["schemas"]["TrashedBlob"][];
                        /**
                         * Trashdays
                         * @description BFF_TRASH_DAYS: days a deleted file stays in the trash
                         */
                        trashDays: number;
                    };
                };
            };
        };
    };
    delete_purge_trashed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Confirmation */
                    confirmation: string;
                };
            };
        };
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_restore_trashed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_visit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's visit to a folder just recorded, and when the one before it ended. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Previousvisitat
                         * @description When the caller's previous visit to this folder ended (null: this is their first): the web app marks files added since as new. Requests within 30 minutes of the last are one visit, two hours at most, and answer the same
                         */
                        previousVisitAt: string | null;
                    };
                };
            };
        };
    };
    get_viewer_page: {
        parameters: {
            query?: {
                width?: number;
            };
            header?: never;
            path: {
                blob: string;
                container: string;
                folder: string;
                page: string;
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_audit_logs: {
        parameters: {
            query?: {
                containerName?: string | null;
                cursor?: number | null;
                folderName?: string | null;
                format?: "json" | "csv";
                limit?: number;
                operation?: string | null;
                since?: string | null;
                until?: string | null;
                user?: string | null;
                userId?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first; pass nextCursor as cursor for the next page (null at the end). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Auditlogs */
                        auditLogs: components["schemas"]["AuditEntry"][];
                        /** Nextcursor */
                        nextCursor: number | null;
                    };
                };
            };
        };
    };
    get_access_report: {
        parameters: {
            query?: {
                containerName?: string;
                cursor?: number | null;
                folderName?: string;
                format?: "json" | "csv";
                limit?: number;
                order?: "oldest" | "newest";
                since?: string | null;
                until?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Oldest first; pass nextCursor as cursor for the next page (null at the end). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Entries */
                        entries: components["schemas"]["AuditEntry"][];
                        /** Nextcursor */
                        nextCursor: number | null;
                    };
                };
            };
        };
    };
    get_audit_status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The audit log's state: verified up to entry verifiedUpTo at verifiedAt (the latest
             *     signed checkpoint; null before the first), or broken.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        broken: components["schemas"]["AuditBreak"] | null;
                        /** Verifiedat */
                        verifiedAt: string | null;
                        /** Verifiedupto */
                        verifiedUpTo: number | null;
                    };
                };
            };
        };
    };
    get_emergency_view: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The patient a responder may see: name, date of birth, photo, files, and until when. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Containername */
                        containerName: string;
                        /**
                         * Expiresat
                         * Format: date-time
                         */
                        expiresAt: string;
                        /** Files */
                        files: components["schemas"]["Blob"][];
                        /** Foldername */
                        folderName: string;
                        /** Hasprofileimage */
                        hasProfileImage: boolean;
                        /**
                         * @description The folder's patient as staff see it (name, date of birth, record number), when known: the identity the page shows beside the token's
                         * @default null
                         */
                        patient: components["schemas"]["PatientDetails"] | null;
                        /** Patientdateofbirth */
                        patientDateOfBirth: string | null;
                        /** Patientname */
                        patientName: string;
                    };
                };
            };
        };
    };
    delete_end_emergency: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_emergency_status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer to a grant's holder while the grant is open (otherwise the neutral 404). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Open */
                        open: boolean;
                    };
                };
            };
        };
    };
    get_health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_liveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_cover_sheet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_list_items: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                status?: "new" | "filed" | "deleted" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of items, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Items */
                        items: components["schemas"]["IntakeItemOut"][];
                        /** Page */
                        page: number;
                        /** Pagesize */
                        pageSize: number;
                        /** Total */
                        total: number;
                    };
                };
            };
        };
    };
    post_upload_batch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description POST /api/intake/items: every file of the batch, in the order sent. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Items */
                        items: components["schemas"]["UploadedItem"][];
                    };
                };
            };
        };
    };
    get_get_item: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description An item as the inbox shows it. The source's details (file name, a mail's sender,
             *     subject and Message-ID) are for intake holders only, as every intake route is.
             *     suggestion: a patient suggested with its evidence (bff/intake/suggest.py), null for none.
             *     routing: pending until routed (bff/intake/routing.py), claimed while a process routes it,
             *     done; problems: what the routing found a person should know (a cover sheet that did not
             *     verify, a folder gone...).
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Contenttype */
                        contentType: string;
                        /** Contenturl */
                        contentUrl: string;
                        /** @default null */
                        deleted: components["schemas"]["DeletedOut"] | null;
                        /** @default null */
                        filed: components["schemas"]["FiledOut"] | null;
                        /** Filename */
                        fileName: string;
                        /** Id */
                        id: number;
                        /** Messageid */
                        messageId: string;
                        /** Pages */
                        pages: number | null;
                        /**
                         * Problems
                         * @default []
                         */
                        problems: string[];
                        /**
                         * Receivedat
                         * Format: date-time
                         */
                        receivedAt: string;
                        /** Receivedby */
                        receivedBy: string;
                        /**
                         * Routing
                         * @default done
                         * @enum {string}
                         */
                        routing: "pending" | "claimed" | "done";
                        /** Sender */
                        sender: string;
                        /** Size */
                        size: number;
                        /**
                         * Source
                         * @enum {string}
                         */
                        source: "scanner" | "mailbox" | "upload";
                        /**
                         * Status
                         * @enum {string}
                         */
                        status: "new" | "filed" | "deleted";
                        /** Subject */
                        subject: string;
                        /** Suggestion */
                        suggestion: {
                            [key: string]: unknown;
                        } | null;
                        /**
                         * Thumbnailurl
                         * @default null
                         */
                        thumbnailUrl: string | null;
                    };
                };
            };
        };
    };
    get_item_content: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_delete_item: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Reason */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description A result a person can read, with the item as it now is. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        item: components["schemas"]["IntakeItemOut"];
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_file_item: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Container */
                    container: string;
                    /** Folder */
                    folder: string;
                    /**
                     * Name
                     * @default null
                     */
                    name?: string | null;
                };
            };
        };
        responses: {
            /** @description The item as filed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        item: components["schemas"]["IntakeItemOut"];
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_rotate_item: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Degrees
                     * @enum {integer}
                     */
                    degrees: 90 | 180 | 270;
                    /**
                     * Pages
                     * @default null
                     */
                    pages?: number[] | null;
                };
            };
        };
        responses: {
            /**
             * @description An item as the inbox shows it. The source's details (file name, a mail's sender,
             *     subject and Message-ID) are for intake holders only, as every intake route is.
             *     suggestion: a patient suggested with its evidence (bff/intake/suggest.py), null for none.
             *     routing: pending until routed (bff/intake/routing.py), claimed while a process routes it,
             *     done; problems: what the routing found a person should know (a cover sheet that did not
             *     verify, a folder gone...).
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Contenttype */
                        contentType: string;
                        /** Contenturl */
                        contentUrl: string;
                        /** @default null */
                        deleted: components["schemas"]["DeletedOut"] | null;
                        /** @default null */
                        filed: components["schemas"]["FiledOut"] | null;
                        /** Filename */
                        fileName: string;
                        /** Id */
                        id: number;
                        /** Messageid */
                        messageId: string;
                        /** Pages */
                        pages: number | null;
                        /**
                         * Problems
                         * @default []
                         */
                        problems: string[];
                        /**
                         * Receivedat
                         * Format: date-time
                         */
                        receivedAt: string;
                        /** Receivedby */
                        receivedBy: string;
                        /**
                         * Routing
                         * @default done
                         * @enum {string}
                         */
                        routing: "pending" | "claimed" | "done";
                        /** Sender */
                        sender: string;
                        /** Size */
                        size: number;
                        /**
                         * Source
                         * @enum {string}
                         */
                        source: "scanner" | "mailbox" | "upload";
                        /**
                         * Status
                         * @enum {string}
                         */
                        status: "new" | "filed" | "deleted";
                        /** Subject */
                        subject: string;
                        /** Suggestion */
                        suggestion: {
                            [key: string]: unknown;
                        } | null;
                        /**
                         * Thumbnailurl
                         * @default null
                         */
                        thumbnailUrl: string | null;
                    };
                };
            };
        };
    };
    post_split_item: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Ranges */
                    ranges: [
                        number,
                        number
                    ][];
                };
            };
        };
        responses: {
            /** @description The items a split made, in order (the original is deleted with the split as reason). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Items */
                        items: components["schemas"]["IntakeItemOut"][];
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_item_thumbnail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_separator_sheet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_patient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A folder's patient as its page shows it, with who last changed them and when. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Changedat
                         * @description When the details were last changed (null: no change on record)
                         * @default null
                         */
                        changedAt: string | null;
                        /**
                         * Changedby
                         * @description Who last changed the patient's details (their display name), as the live patient:changed event says; null when no change is on record
                         * @default null
                         */
                        changedBy: string | null;
                        /**
                         * Dateofbirth
                         * @default null
                         */
                        dateOfBirth: string | null;
                        /**
                         * Name
                         * @default null
                         */
                        name: string | null;
                        /**
                         * Recordnumber
                         * @default null
                         */
                        recordNumber: string | null;
                    };
                };
            };
        };
    };
    put_update_patient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
                folder: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Dateofbirth
                     * @default null
                     */
                    dateOfBirth?: string | null;
                    /**
                     * Name
                     * @default null
                     */
                    name?: string | null;
                    /**
                     * Recordnumber
                     * @default null
                     */
                    recordNumber?: string | null;
                };
            };
        };
        responses: {
            /** @description The patient as saved. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        patient: components["schemas"]["PatientDetails"];
                    };
                };
            };
        };
    };
    get_search: {
        parameters: {
            query?: {
                container?: string | null;
                cursor?: string | null;
                folder?: string | null;
                limit?: number;
                /** @description First day, inclusive (UTC) */
                modifiedFrom?: string | null;
                /** @description Last day, inclusive (UTC) */
                modifiedTo?: string | null;
                /** @description Words (all must match), "a phrase", -excluded, prefix* */
                q?: string;
                type?: components["schemas"]["FileType"] | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of results, best first (ties: newest first). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Nextcursor */
                        nextCursor: string | null;
                        /** Results */
                        results: components["schemas"]["SearchResult"][];
                        /**
                         * Total
                         * @description Files matching in the caller's scope (at least, if capped)
                         */
                        total: number;
                        /**
                         * Totalcapped
                         * @description True when the query matched more than are counted: total is a floor
                         * @default false
                         */
                        totalCapped: boolean;
                    };
                };
            };
        };
    };
    get_list_users: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The users list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Users */
                        users: components["schemas"]["UserSummary"][];
                    };
                };
            };
        };
    };
    get_get_user: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["UserDetail"];
                    };
                };
            };
        };
    };
    put_update_user: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Intake
                     * @default null
                     */
                    intake?: boolean | null;
                    /** Name */
                    name: string;
                    /**
                     * Password
                     * @default null
                     */
                    password?: string | null;
                    /**
                     * Role
                     * @enum {string}
                     */
                    role: "admin" | "doctor" | "nurse" | "assistant";
                    /** Username */
                    username: string;
                };
            };
        };
        responses: {
            /** @description One user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["UserDetail"];
                    };
                };
            };
        };
    };
    delete_delete_user: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    delete_reset_second_factor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_sso_account: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET /api/users/{id}/sso: a user's single sign-on on the admin's user page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Admin */
                        admin: boolean;
                        /** Enabled */
                        enabled: boolean;
                        /**
                         * Expecteduntil
                         * @default null
                         */
                        expectedUntil: string | null;
                        /**
                         * Linkedat
                         * @default null
                         */
                        linkedAt: string | null;
                        /** Provider */
                        provider: string;
                        /** Seen */
                        seen: components["schemas"]["SeenSubject"][];
                        /**
                         * Subject
                         * @default null
                         */
                        subject: string | null;
                    };
                };
            };
        };
    };
    put_sso_expect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description PUT /api/users/{id}/sso-expected: the new link code, shown this once (only its hash is
             *     kept), for the admin to hand to the person privately, and when it expires.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Expecteduntil
                         * Format: date-time
                         */
                        expectedUntil: string;
                        /** Linkcode */
                        linkCode: string;
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    delete_sso_cancel_expected: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    put_sso_bind: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Subject */
                    subject: string;
                };
            };
        };
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    delete_sso_unlink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    get_dashboard: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Admin dashboard: the 5 most recent users and counts by role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        stats: components["schemas"]["DashboardStats"];
                        /** Users */
                        users: components["schemas"]["UserOut"][];
                    };
                };
            };
        };
    };
    get_list_users_with_assignments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A list of users. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Users */
                        users: components["schemas"]["UserOut"][];
                    };
                };
            };
        };
    };
    get_docs_page: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_docs_assets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                filename: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_docs_init: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    get_prometheus_metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: never;
    };
    post_assign_token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Containername */
                    containerName: string;
                    /** Foldername */
                    folderName: string;
                    /**
                     * Patientdateofbirth
                     * @default null
                     */
                    patientDateOfBirth?: string | null;
                    /**
                     * Patientname
                     * @default
                     */
                    patientName?: string;
                    /** Tokenid */
                    tokenId: string;
                };
            };
        };
        responses: {
            /** @description The result of an assignment; reassignment when the folder was linked to another token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        /** Previoustokenid */
                        previousTokenId: string | null;
                        /** Reassignment */
                        reassignment: boolean;
                        token: components["schemas"]["SmartTokenOut"];
                    };
                };
            };
        };
    };
    get_assigned_tokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tokens, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Tokens */
                        tokens: components["schemas"]["SmartTokenOut"][];
                    };
                };
            };
        };
    };
    get_assigned_folders: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                container: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Folder name to its linked token, for one container. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Assignedfolders */
                        assignedFolders: {
                            [key: string]: components["schemas"]["TokenFolderLink"];
                        };
                    };
                };
            };
        };
    };
    delete_delete_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Reason
                     * @default
                     */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description A result with a message a person can read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                    };
                };
            };
        };
    };
    post_reactivate_token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Tokenid */
                    tokenId: string;
                };
            };
        };
        responses: {
            /** @description A transition's message and the token as it is now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        token: components["schemas"]["SmartTokenOut"];
                    };
                };
            };
        };
    };
    post_register_token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Securechipid */
                    secureChipId: string;
                    /** @default null */
                    sun?: components["schemas"]["SunTag"] | null;
                };
            };
        };
        responses: {
            /**
             * @description A registered device and what to write to it (shown once): the verification URL of a
             *     static token, or the URL template of a SUN tag with its personalisation data.
             */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        kind: components["schemas"]["TokenKind"];
                        /** Message */
                        message: string;
                        /** Securechipid */
                        secureChipId: string;
                        /** Smarttokenid */
                        smartTokenId: string;
                        /** @default null */
                        sun: components["schemas"]["SunPersonalisation"] | null;
                        /** Verificationurl */
                        verificationUrl: string;
                    };
                };
            };
        };
    };
    post_revoke_token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Reason
                     * @default
                     */
                    reason?: string;
                    /** Tokenid */
                    tokenId: string;
                };
            };
        };
        responses: {
            /** @description A transition's message and the token as it is now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Message */
                        message: string;
                        token: components["schemas"]["SmartTokenOut"];
                    };
                };
            };
        };
    };
    get_unclaimed_tokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tokens, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Tokens */
                        tokens: components["schemas"]["SmartTokenOut"][];
                    };
                };
            };
        };
    };
}
