"""The demo as the README has a newcomer run it: `python -m bff demo` beside a running server
(here from a shell whose settings would make another address: no BFF_PORT), printing that
server's address and commands that each run as printed; the staff it prints sign in to that
server and find their folders' patients; the README's command sets the admin a new password.
And a fresh database migrated by the server and a
command at once (the demo just after the first `make run`): one waits for the other."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bff.demo import ASSIGNED, PATIENTS
from tools.devserver import REPO, ServerProcess, local_env

pytestmark = pytest.mark.timeout(300)


def bff(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m bff args` from the repository, as the README runs it."""
    return subprocess.run(  # noqa: S603 - this Python, fixed arguments
        [sys.executable, "-m", "bff", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def call(url: str, body: dict[str, str] | None = None, token: str = "") -> tuple[int, object]:
    """An HTTP request to the server: its status and JSON answer (None when not JSON)."""
    request = urllib.request.Request(  # noqa: S310 - the test's own server
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **({"x-auth-token": token} if token else {})},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
        data = answer.read()
        try:
            return answer.status, json.loads(data)
        except ValueError:
            return answer.status, None


def test_the_demo_loads_beside_the_running_server_and_its_commands_run_as_printed(
    tmp_path: Path,
) -> None:
    env = {key: value for key, value in local_env(tmp_path).items() if key != "BFF_PORT"}
    server = ServerProcess(env, log=tmp_path / "server.log")
    try:
        address = f"http://localhost:{server.port}"
        done = bff(["demo"], env)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert f"Open {address} (the server running on this database) and sign in." in lines
        assert "localhost:8000" not in done.stdout  # this shell's settings' address

        commands = [line.strip() for line in lines if " -m bff " in line]
        assert commands, done.stdout
        for command in commands:
            argv = shlex.split(command)
            assert argv[0] == ".venv/bin/python" or Path(argv[0]).is_absolute(), command
            ran = subprocess.run(  # noqa: S603 - the demo's own printed command
                argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
            )
            assert ran.returncode == 0, f"{command}: {ran.stderr}"
            if "simulate-tap" in command:  # a tap on the running server, not on port 8000
                tap = ran.stdout.strip()
                assert tap.startswith(f"{address}/patients/verify/"), tap
                status, _ = call(tap.replace("localhost", "127.0.0.1", 1))
                assert status == 200

        doctor = next(line.split() for line in lines if line.split()[:1] == ["doctor"])
        username, password = doctor[1], doctor[-1]
        _, signed_in = call(
            f"{server.base}/api/auth/login", {"username": username, "password": password}
        )
        assert isinstance(signed_in, dict)
        token = signed_in["token"]
        container, folders = next(iter(ASSIGNED[username].items()))
        for folder in folders:
            _, patient = call(f"{server.base}/api/patients/{container}/{folder}", token=token)
            invented = PATIENTS[(container, folder)]
            assert isinstance(patient, dict)
            assert patient["name"] == invented.name
            assert patient["dateOfBirth"] == invented.birth_date.isoformat()
            assert patient["recordNumber"] == invented.record_number

        # The README's way to give the admin a new password, beside the running server (no
        # terminal here: it generates one and prints it).
        readme = (REPO / "README.md").read_text(encoding="utf-8")
        reset = next(
            line for line in readme.splitlines() if " -m bff users reset-password " in line
        )
        argv = shlex.split(reset)
        assert argv[0] == ".venv/bin/python", reset
        ran = subprocess.run(  # noqa: S603 - the README's command, with this interpreter
            [sys.executable, *argv[1:]],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert ran.returncode == 0, ran.stderr
        new_password = ran.stdout.strip().rsplit("New password: ", 1)[1]
        _, signed_in = call(
            f"{server.base}/api/auth/login", {"username": "admin", "password": new_password}
        )
        assert isinstance(signed_in, dict) and signed_in["token"]
    finally:
        server.stop()


def test_without_a_server_the_demo_says_to_start_one_at_its_address(tmp_path: Path) -> None:
    env = local_env(tmp_path, port="8123")
    done = bff(["demo"], env)
    assert done.returncode == 0, done.stderr
    assert "Start the server (make run), open http://localhost:8123 and sign in." in done.stdout


def test_a_server_and_a_command_migrating_a_fresh_database_at_once_both_succeed(
    tmp_path: Path,
) -> None:
    env = local_env(tmp_path)
    both = [
        subprocess.Popen(
            [sys.executable, "-m", "bff", "migrate"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in both:
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err
        assert out.strip() == "Database is up to date."
