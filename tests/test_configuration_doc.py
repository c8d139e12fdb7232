"""docs/configuration.md is what `python -m config.reference` writes from the settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from config import reference
from config.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def test_every_setting_has_a_meaning_and_every_meaning_a_setting() -> None:
    assert set(reference.meanings()) == set(Settings.model_fields)
    assert all(entry["meaning"].strip() for entry in reference.meanings().values())


def test_the_configuration_reference_is_what_the_command_writes() -> None:
    """Run the command an operator or developer runs, and compare with the file kept."""
    written = subprocess.run(
        [sys.executable, "-m", "config.reference"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    kept = (ROOT / "docs" / "configuration.md").read_text()
    assert written == kept, "docs/configuration.md is stale: python -m config.reference > it"
    for name in Settings.model_fields:
        assert f"| `BFF_{name.upper()}` |" in kept


def test_bounds_are_shown_as_the_settings_check_them() -> None:
    port = reference.allowed(Settings.model_fields["port"])
    assert port == "a whole number from 1 to 65\u202f535"
    assert reference.allowed(Settings.model_fields["view_offload"]) == "`none`, `nginx`, `s3`"
    assert reference.allowed(Settings.model_fields["session_hours"]) == "a number over 0 to 720"
