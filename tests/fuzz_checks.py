"""A schemathesis check for the fuzz test: a nurse never receives data of unassigned folders.

Loaded by `schemathesis` through SCHEMATHESIS_HOOKS=tests.fuzz_checks; the names that must never
appear in her successful responses come from BFF_FUZZ_SECRETS (comma-separated).
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis


@schemathesis.check
def no_unassigned_data(ctx: Any, response: Any, case: Any) -> None:
    """Fail when a successful response mentions a container, folder or file not assigned."""
    if response.status_code >= 300:
        return
    text = response.text or ""
    for secret in filter(None, os.environ.get("BFF_FUZZ_SECRETS", "").split(",")):
        if secret in text:
            raise AssertionError(f"{case.method} {case.formatted_path} revealed {secret!r}")
