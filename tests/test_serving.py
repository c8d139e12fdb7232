"""var/serving.json (bff/serving.py): where a running `python -m bff serve` is, for the commands
run beside it. It never lets a reader try passwords against the database's URL, and a second
server that cannot bind its port leaves the first one's record alone."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bff.serving import FILE_NAME, served_url, serving
from config.settings import load_settings
from tools.devserver import REPO, ServerProcess, local_env

URL = "postgres://bff:correct-horse-battery@db.example:5432/records"


def test_the_record_names_the_database_by_a_keyed_digest(tmp_path: Path) -> None:
    """An unsalted digest of the URL is a password check anyone reading the file can run
    offline (sha256 of the URL with each guess); keyed with the app's secret it is not. A
    command with the same database and secret still finds the server."""
    settings = load_settings(database_url=URL, var_dir=tmp_path / "var", secret_key="k" * 32)
    with serving(settings):
        text = (tmp_path / "var" / FILE_NAME).read_text(encoding="utf-8")
        assert "correct-horse-battery" not in text
        digest = json.loads(text)["database"]
        assert digest != hashlib.sha256(URL.encode()).hexdigest()  # the guess would match
        # Under a key of its own: nothing the session key signs is written out.
        session_mac = hmac.new(b"k" * 32, URL.encode(), hashlib.sha256).hexdigest()
        assert digest != session_mac
        assert served_url(settings) == settings.public_url
        another_secret = settings.model_copy(update={"secret_key": "j" * 32})
        assert served_url(another_secret) is None
        another_password = settings.model_copy(update={"database_url": URL.replace("horse", "x")})
        assert served_url(another_password) is None


def test_a_record_whose_pid_was_given_to_another_process_names_no_server(tmp_path: Path) -> None:
    """A server killed with SIGKILL leaves its record; its pid may be given to another process
    later (this test's, here): that process is not taken for the server (its start time
    differs), so a command prints its own address, not a dead server's."""
    settings = load_settings(database_url=URL, var_dir=tmp_path / "var", secret_key="k" * 32)
    with serving(settings):
        path = tmp_path / "var" / FILE_NAME
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["pid"] == os.getpid() and record["started"]
        assert served_url(settings) == settings.public_url
        path.write_text(json.dumps({**record, "started": "1"}), encoding="utf-8")
        assert served_url(settings) is None


@pytest.mark.timeout(240)
def test_a_second_server_that_cannot_bind_its_port_leaves_the_first_ones_record(
    tmp_path: Path,
) -> None:
    env = local_env(tmp_path)
    first = ServerProcess(env, log=tmp_path / "first.log")
    record = tmp_path / "var" / FILE_NAME
    try:
        assert json.loads(record.read_text(encoding="utf-8"))["pid"] == first.pid
        second = subprocess.Popen(
            [sys.executable, "-m", "bff", "serve"],
            cwd=REPO,
            env={**env, "BFF_PORT": str(first.port)},  # the first one's port
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _, stderr = second.communicate(timeout=120)
        except subprocess.TimeoutExpired:  # (it used to hang once its bind had failed)
            second.kill()
            _, stderr = second.communicate()
        assert json.loads(record.read_text(encoding="utf-8"))["pid"] == first.pid
        assert second.returncode == 1, stderr
        assert f"Cannot listen on 127.0.0.1:{first.port}" in stderr
        assert "Traceback" not in stderr
        beside = load_settings(database_url=env["BFF_DATABASE_URL"], var_dir=env["BFF_VAR_DIR"])
        assert served_url(beside) == f"http://localhost:{first.port}"
    finally:
        first.stop()
    assert not record.exists()  # the first one's own, removed as it stopped
