"""Schemathesis hooks for the fuzz tests (loaded through SCHEMATHESIS_HOOKS=tests.fuzz_checks).

- `no_unassigned_data`: a nurse never receives data of unassigned folders; the names that must
  never appear in her successful responses come from BFF_FUZZ_SECRETS (comma-separated).
- `errors_are_messages`: every refusal has the documented shape, a JSON object `{message}`.
- Real names as path parameters: random strings almost never name an existing container,
  folder or file, so every operation also gets explicit cases with the path parameter values of
  BFF_FUZZ_PATHS (a JSON list of objects, e.g. an assigned folder, an unassigned folder of an
  assigned container, a folder of an unassigned container), each sent with the body and query
  of the operation's generated example.
- Very long path parameters: each path parameter in turn is also sent as 5,000 digits (past
  any id column and past Python's 4,300-digit int() limit), the others taking real values.
"""

from __future__ import annotations

import json
import os
from typing import Any

import schemathesis

LONG = "9" * 5000


@schemathesis.check
def no_unassigned_data(ctx: Any, response: Any, case: Any) -> None:
    """Fail when a successful response mentions a container, folder or file not assigned."""
    if response.status_code >= 300:
        return
    # As bytes: a download (a cover sheet's PDF) is no UTF-8 text.
    body = response.content or b""
    for secret in filter(None, os.environ.get("BFF_FUZZ_SECRETS", "").split(",")):
        if secret.encode() in body:
            raise AssertionError(f"{case.method} {case.formatted_path} revealed {secret!r}")


@schemathesis.check
def errors_are_messages(ctx: Any, response: Any, case: Any) -> None:
    """Fail when a refusal is not the documented JSON `{message}` with a readable message."""
    if response.status_code < 400:
        return
    try:
        body = json.loads(response.text or "")
    except ValueError:
        raise AssertionError(
            f"{case.method} {case.formatted_path} answered {response.status_code} without JSON"
        ) from None
    if not (isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]):
        raise AssertionError(
            f"{case.method} {case.formatted_path} answered {response.status_code} with {body!r}"
        )


@schemathesis.hook
def before_add_examples(context: Any, examples: list[Any]) -> None:
    """Add a case per set of real path parameter values that covers the operation's own."""
    operation = context.operation
    names = {parameter.name for parameter in operation.path_parameters}
    if not names:
        return
    seeds: list[dict[str, str]] = json.loads(os.environ.get("BFF_FUZZ_PATHS", "[]"))
    real = next((values for values in seeds if names <= set(values)), None)
    if real is not None:
        seeds = seeds + [{**real, name: LONG} for name in sorted(names)]
    bases = list(examples)  # the generated example (phases.examples.fill-missing), if any
    for values in seeds:
        if not names <= set(values):
            continue
        path_parameters = {name: values[name] for name in names}
        for base in bases or [None]:
            extra: dict[str, Any] = {}
            if base is not None:
                extra = {"query": base.query, "body": base.body, "media_type": base.media_type}
            examples.append(operation.Case(path_parameters=path_parameters, **extra))
