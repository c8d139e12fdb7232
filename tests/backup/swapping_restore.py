"""`python -m bff restore LOCATION` with one part of the snapshot replaced by another file the
moment the restore reports a given step: its progress callback is the seam, called after the
check of every part and before the step reads anything, so a test can put a part swapped in
that window in front of the restore deterministically (no timing).

    python -m tests.backup.swapping_restore LOCATION STEP PART REPLACEMENT
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from config.filemodes import private_files


def main(location: str, step: str, part: str, replacement: str) -> None:
    """Run the restore command, swapping PART for REPLACEMENT when it says a line starting STEP."""
    private_files()
    from bff.backup import cli as backup_cli
    from bff.cli import cli

    say = backup_cli._say

    def swapping(line: str) -> None:
        say(line)
        if line.startswith(step):
            shutil.copyfile(replacement, Path(location) / part)
            say(f"(test) {part} replaced by {replacement}")

    backup_cli._say = swapping
    cli(["restore", location], prog_name="python -m bff")


if __name__ == "__main__":
    main(*sys.argv[1:5])
