"""The configuration reference, made from the settings themselves (config/settings.py: names,
types, bounds) and what each means (config/settings_meanings.toml).

    python -m config.reference > docs/configuration.md

tests/test_configuration_doc.py fails when a setting has no meaning, a meaning names no setting,
or docs/configuration.md differs from what this prints.
"""

from __future__ import annotations

import sys
import tomllib
import typing
from pathlib import Path
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic.fields import FieldInfo

from config.settings import Settings

BOUNDS = ((Ge, "from", "ge"), (Gt, "over", "gt"), (Le, "to", "le"), (Lt, "under", "lt"))
MEANINGS = Path(__file__).with_name("settings_meanings.toml")

HEADER = """\
# Configuration

Every setting is an environment variable named `BFF_` and the setting's name, read once when a
process starts and validated: an invalid one stops the start with one line naming it. Every
default lets a fresh checkout run with no services at all (SQLite and local disk under `var/`,
in-process fallbacks instead of Redis). Where to set them in production: the environment file of
the systemd unit, or the platform's settings ([operations.md](operations.md)).

This page is generated from `config/settings.py` and `config/settings_meanings.toml` by
`python -m config.reference > docs/configuration.md`; a test fails when they differ.

| Variable | Default | Allowed | Meaning |
|---|---|---|---|
"""


def meanings() -> dict[str, dict[str, str]]:
    """Each setting's `default` (in words) and `meaning`, by field name."""
    with MEANINGS.open("rb") as handle:
        return tomllib.load(handle)


def allowed(field: FieldInfo) -> str:
    """The values a setting accepts, from its type and bounds."""
    annotation = field.annotation
    if typing.get_origin(annotation) is typing.Literal:
        return ", ".join(f"`{value}`" for value in typing.get_args(annotation))
    if annotation is bool:
        return "`true`, `false`"
    bounds = []
    for rule in field.metadata:
        for kind, sign, attribute in BOUNDS:
            if isinstance(rule, kind):
                bounds.append(f"{sign} {_number(getattr(rule, attribute))}")
    if annotation in (int, float):
        kind_name = "a whole number" if annotation is int else "a number"
        return " ".join([kind_name, *bounds])
    return "text"


def _number(value: Any) -> str:
    return f"{value:,}".replace(",", "\u202f") if isinstance(value, int) else str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def reference() -> str:
    """The Markdown of docs/configuration.md."""
    known = meanings()
    missing = [name for name in Settings.model_fields if name not in known]
    unknown = [name for name in known if name not in Settings.model_fields]
    if missing or unknown:
        raise SystemExit(
            f"config/settings_meanings.toml: no entry for {missing}; entries naming no "
            f"setting: {unknown}"
        )
    rows = [
        f"| `BFF_{name.upper()}` | {_cell(known[name]['default'])} | {allowed(field)} | "
        f"{_cell(known[name]['meaning'])} |"
        for name, field in Settings.model_fields.items()
    ]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
