"""What an operator installs to keep the web process running: the systemd units and the
Dockerfile run the Procfile's commands word for word, and the unit's command, run the way
systemd runs it (its EnvironmentFile, WorkingDirectory, PATH), serves, dies with its worker
when the worker is killed, and serves again on the same port when started again, which is what
`Restart=always` does. systemd itself does not run on these machines; `systemd-analyze verify`
checks the units as systemd would read them."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tools.devcluster import NGINX_TEMPLATE, nginx_binary, render_nginx
from tools.devserver import REPO, free_port, kill_group, wait_for_port

UNIT = REPO / "config" / "systemd" / "bff.service"
MIGRATE_UNIT = REPO / "config" / "systemd" / "bff-migrate.service"
ENV_EXAMPLE = REPO / "config" / "systemd" / "bff.env.example"


def procfile() -> dict[str, str]:
    """The Procfile's process types and their commands."""
    lines = (REPO / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def unit_service(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text())
    return parser["Service"]


def shell_command(exec_start: str) -> str:
    """The command of `/bin/sh -c 'exec COMMAND'`."""
    words = shlex.split(exec_start)
    assert words[:2] == ["/bin/sh", "-c"] and len(words) == 3, exec_start
    assert words[2].startswith("exec "), exec_start
    return words[2].removeprefix("exec ")


def test_the_units_pass_systemds_own_check() -> None:
    result = subprocess.run(  # noqa: S603 - systemd's own tool on our files
        ["/usr/bin/systemd-analyze", "verify", str(UNIT), str(MIGRATE_UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""  # not even an ignored unknown key


def test_the_units_and_the_dockerfile_run_the_procfiles_commands() -> None:
    commands = procfile()
    service = unit_service(UNIT)
    assert shell_command(service["ExecStart"]) == commands["web"]
    assert service["Restart"] == "always"
    assert service["EnvironmentFile"] == "/etc/bff/bff.env"
    assert shell_command(unit_service(MIGRATE_UNIT)["ExecStart"]) == commands["release"]
    cmd = re.search(r"^CMD (.+)$", (REPO / "Dockerfile").read_text(), re.MULTILINE)
    assert cmd is not None
    assert shell_command(shlex.join(json.loads(cmd.group(1)))) == commands["web"]


# The live connections per address the nginx template allows when LIVE_PER_ADDRESS is not filled
# in (docs/operations.md, docs/capacity.md).
LIVE_PER_ADDRESS_DEFAULT = 2000


def test_the_nginx_template_filled_by_hand_takes_its_live_limits_default(tmp_path: Path) -> None:
    """The template as an operator fills it, following its header: the placeholders without a
    default by hand, then the header's own sed command, which writes LIVE_PER_ADDRESS's default.
    nginx accepts the result, with the documented limit on /socket.io/; tools/devcluster.py
    renders the same default when given none."""
    template = NGINX_TEMPLATE.read_text()
    (sed,) = re.findall(r"`(sed -E '[^`]+')`", template)
    filled = template
    for name, value in {
        "LISTEN": f"127.0.0.1:{free_port()}",
        "UPSTREAMS": "server 127.0.0.1:9;",
        "MAX_BODY_MB": "51",
        "PREFIX": str(tmp_path),
        "STORAGE_ROOT": str(tmp_path / "storage"),
    }.items():
        filled = filled.replace("{{" + name + "}}", value)
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        subprocess.run(  # noqa: S603 - the template's own command line
            shlex.split(sed), input=filled, capture_output=True, text=True, check=True, timeout=30
        ).stdout
    )
    active = [line for line in conf.read_text().splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in active if "{{" in line]
    assert f"            limit_conn bff_live {LIVE_PER_ADDRESS_DEFAULT};" in active
    checked = subprocess.run(  # noqa: S603 - nginx's own check of the file
        [nginx_binary(), "-t", "-p", str(tmp_path), "-c", str(conf)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr
    rendered = render_nginx("127.0.0.1:8080", [9], 50, tmp_path, live_per_address=None)
    assert f"limit_conn bff_live {LIVE_PER_ADDRESS_DEFAULT};" in rendered


def environment_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines as systemd's EnvironmentFile= reads them (comments and blanks skipped)."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    pairs = [line.split("=", 1) for line in lines if line and not line.startswith("#")]
    return {key: value for key, value in pairs}


def get_status(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback
        return int(response.status)


def worker_of(pid: int) -> int:
    """Hypercorn's worker: the child of its master that multiprocessing spawned to serve
    (the other child is multiprocessing's resource tracker)."""
    found = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    workers = [
        child for child in found if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
    ]
    assert len(workers) == 1, [Path(f"/proc/{c}/cmdline").read_bytes() for c in found]
    return workers[0]


def test_the_unit_serves_and_a_dead_worker_ends_the_service_so_systemd_restarts_it(
    tmp_path: Path,
) -> None:
    service = unit_service(UNIT)
    port = free_port()
    # The example settings, pointed at this test's own SQLite, storage and port.
    env = {
        **environment_file(ENV_EXAMPLE),
        "BFF_PORT": str(port),
        "BFF_DATABASE_URL": f"sqlite://{tmp_path}/bff.sqlite3",
        "BFF_STORAGE_URL": f"file://{tmp_path}/storage",
        "BFF_VAR_DIR": str(tmp_path / "var"),
        "BFF_REDIS_URL": "",
        "BFF_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "BFF_ADMIN_PASSWORD": "operator-admin-password",
    }
    unit_path = service["Environment"].removeprefix("PATH=")
    env["PATH"] = unit_path.replace("/opt/bff/.venv/bin", str(Path(sys.executable).parent))
    assert service["WorkingDirectory"] == "/opt/bff"  # the checkout; here, this one

    def run(unit: Path) -> subprocess.Popen[bytes]:
        words = shlex.split(unit_service(unit)["ExecStart"])
        return subprocess.Popen(  # noqa: S603 - the unit's own command
            words,
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own group, as systemd's cgroup: cleaned up whole
        )

    assert run(MIGRATE_UNIT).wait(timeout=120) == 0
    web = run(UNIT)
    try:
        wait_for_port(port, web, 60)
        assert get_status(f"http://127.0.0.1:{port}/api/health") == 200
        # Kill only the worker: Hypercorn's master goes with it, and the port closes.
        os.kill(worker_of(web.pid), signal.SIGKILL)
        web.wait(timeout=30)  # it exits (whatever its code, Restart=always starts it again)
        with pytest.raises(OSError):
            get_status(f"http://127.0.0.1:{port}/api/health")
        # What systemd does RestartSec later: the same command serves again at once.
        started = time.monotonic()
        web = run(UNIT)
        wait_for_port(port, web, 60)
        assert get_status(f"http://127.0.0.1:{port}/api/health") == 200
        assert time.monotonic() - started < 60
        # SIGTERM (systemctl stop) ends it within TimeoutStopSec.
        web.send_signal(signal.SIGTERM)
        web.wait(timeout=int(service["TimeoutStopSec"]))
    finally:
        kill_group(web)  # whatever is left of it, workers included
