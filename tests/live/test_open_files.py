"""A process's open-file limit is raised for its live connections (systemd's soft 1,024
would refuse the 1,025th connection)."""

from __future__ import annotations

import resource
import subprocess
import sys


def test_the_soft_open_file_limit_is_raised_to_the_hard_one() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= 1024:
        return  # nothing to raise to on this machine
    # In a child started with systemd's default soft limit, so this process is untouched.
    script = (
        "import resource; from bff.live.transport import raise_open_file_limit;"
        "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1];"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard));"
        "limit = raise_open_file_limit();"
        "print(limit, resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert int(out[0]) == int(out[1]) > 1024
