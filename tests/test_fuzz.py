"""Fuzzing the API from its own OpenAPI document (schemathesis) as an admin, as a nurse and
without a token, each run against a server of its own: no 5xx, no traceback in the server's
log, every response in its documented shape (2xx by the schema, refusals `{message}`), and
nothing of unassigned folders reaching the nurse. Path parameters also take the real names of
an assigned folder, an unassigned folder of the nurse's container and a folder of a container
she does not have (tests/fuzz_checks.py), so the scoped routes are tried on them and not only
on random strings; very long path parameters are tried on every route.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.auth.test_permissions import EXPECTED
from tools.devserver import ServerProcess, local_env

ADMIN_PASSWORD = "fuzz-admin-password"
NURSE_PASSWORD = "fuzz-nurse-password"
# What the nurse must never receive: an unassigned container, an unassigned folder of her own
# container, a folder of the unassigned container, and their files.
SECRETS = [
    "secret-ward",
    "hidden-patient",
    "hidden-report.txt",
    "hidden-neighbour",
    "neighbour-report.txt",
]
# Operations that would end the fuzzer's own session (then everything after is a 401).
EXCLUDED = r"^/api/auth/logout|^/api/users/\{user_id\}(/mfa)?$"
CHECKS = "not_a_server_error,response_schema_conformance,errors_are_messages"


def _api(base: str, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
    headers = {"x-auth-token": token} if token else {}
    response = requests.request(method, base + path, headers=headers, timeout=30, **kw)
    assert response.status_code < 400, (path, response.status_code, response.text)
    return response.json()


@dataclass
class Seeded:
    """A server of one test's own with its data, and the real path parameter values."""

    server: ServerProcess
    log: Path
    admin: str
    nurse: str
    paths: list[dict[str, str]]

    @property
    def base(self) -> str:
        return self.server.base


def _seed(server: ServerProcess, log: Path) -> Seeded:
    base = server.base
    login = {"username": "admin", "password": ADMIN_PASSWORD}
    admin = _api(base, "POST", "/api/auth/login", json=login)["token"]
    folders = (
        ("open-ward", "patient-1", "ok.txt"),
        ("open-ward", "hidden-neighbour", "neighbour-report.txt"),
        ("secret-ward", "hidden-patient", "hidden-report.txt"),
    )
    for container in ("open-ward", "secret-ward"):
        _api(base, "POST", "/api/admin/containers", admin, json={"name": container})
    for container, folder, file in folders:
        url = f"/api/admin/containers/{container}/folders"
        _api(base, "POST", url, admin, json={"name": folder})
        upload = {"file": (file, b"patient notes")}
        _api(base, "POST", f"/api/blobs/{container}/{folder}", admin, files=upload)
    nurse = _api(
        base,
        "POST",
        "/api/auth/register",
        admin,
        json={
            "name": "Fuzz Nurse",
            "username": "fuzz.nurse",
            "password": NURSE_PASSWORD,
            "role": "nurse",
        },
    )["user"]
    _api(base, "POST", f"/api/assignments/containers/open-ward/users/{nurse['id']}", admin)
    assigned = _api(
        base,
        "POST",
        "/api/assignments/containers/open-ward/folders",
        admin,
        json={"userId": nurse["id"], "folderNames": ["patient-1"]},
    )
    token = _api(base, "POST", "/patients/admin/register", admin, json={"secureChipId": "fuzz"})
    nurse_token = _api(
        base,
        "POST",
        "/api/auth/login",
        json={"username": "fuzz.nurse", "password": NURSE_PASSWORD},
    )["token"]
    ids = {
        "user_id": str(nurse["id"]),
        "assignment_id": str(assigned["assigned"][0]["id"]),
        "token_id": token["smartTokenId"],
    }
    paths = [{"container": c, "folder": f, "blob": b, **ids} for c, f, b in folders]
    return Seeded(server, log, admin, nurse_token, paths)


@pytest.fixture
def seeded(tmp_path: Path) -> Iterator[Seeded]:
    """A server for one fuzz run (a run may change anything: the next one starts afresh)."""
    log = tmp_path / "server.log"
    server = ServerProcess(local_env(tmp_path, admin_password=ADMIN_PASSWORD), log=log)
    try:
        yield _seed(server, log)
    finally:
        server.stop()


def _fuzz(
    seeded: Seeded, token: str | None, checks: str, secrets: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    config = seeded.log.with_name("schemathesis.toml")
    # The generated example of each operation lends its body and query to the seeded cases.
    config.write_text("[phases.examples]\nfill-missing = true\n")
    header = ["--header", f"x-auth-token: {token}"] if token else []
    excluded = ["--exclude-path-regex", EXCLUDED] if token else []
    done = subprocess.run(  # noqa: S603 - schemathesis' own CLI, fixed arguments
        [
            st,
            "--config-file",
            str(config),
            "run",
            f"{seeded.base}/openapi.json",
            "--url",
            seeded.base,
            *header,
            "--checks",
            checks,
            "--max-examples",
            "8",
            "--seed",
            "20261122",
            *excluded,
            "--request-timeout",
            "20",
            # One worker: hypothesis parses lambdas with ast in each thread, and CPython 3.11
            # can crash doing that concurrently ("AST constructor recursion depth mismatch").
            "--workers",
            "1",
        ],
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.fuzz_checks",
            "BFF_FUZZ_PATHS": json.dumps(seeded.paths),
            "BFF_FUZZ_SECRETS": ",".join(secrets or []),
        },
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    log = seeded.log.read_text(errors="replace")
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:4000]
    return done


def test_fuzzing_as_an_admin_finds_no_server_error(seeded: Seeded) -> None:
    _fuzz(seeded, seeded.admin, CHECKS)


def test_fuzzing_as_a_nurse_reveals_nothing_unassigned(seeded: Seeded) -> None:
    _fuzz(seeded, seeded.nurse, f"{CHECKS},no_unassigned_data", SECRETS)


def test_fuzzing_without_a_token_finds_no_server_error(seeded: Seeded) -> None:
    _fuzz(seeded, None, CHECKS)


@pytest.fixture(scope="module")
def quiet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """A server with an admin and nothing else, for requests that can name nothing."""
    root = tmp_path_factory.mktemp("long")
    server = ServerProcess(local_env(root, admin_password=ADMIN_PASSWORD))
    try:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        yield server, _api(server.base, "POST", "/api/auth/login", json=login)["token"]
    finally:
        server.stop()


PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
LONG = "9" * 5000  # far past any id column, and past Python's 4,300-digit int() limit


def _long_cases() -> Iterator[Any]:
    for method, rule in sorted(EXPECTED):
        for _, name in PARAMETER.findall(rule):
            yield pytest.param(method, rule, name, id=f"{method} {rule} {name}")


# Valid bodies and queries for the routes with an id in the path, so that only the id decides.
ID_REQUESTS: dict[tuple[str, str], dict[str, Any]] = {
    ("PUT", "/api/users/<int:user_id>"): {
        "json": {"name": "Someone", "username": "someone", "role": "nurse"}
    },
    ("DELETE", "/api/assignments/<int:assignment_id>"): {"params": {"type": "folder"}},
    ("DELETE", "/api/auth/mfa/webauthn/<int:passkey_id>"): {"json": {"password": ADMIN_PASSWORD}},
    ("PUT", "/api/users/<int:user_id>/sso-link"): {"json": {"subject": "a-subject"}},
    ("POST", "/api/intake/items/<int:item_id>/file"): {
        "json": {"container": "ward", "folder": "patient-1"}
    },
    ("POST", "/api/intake/items/<int:item_id>/delete"): {"json": {"reason": "a duplicate"}},
    ("POST", "/api/intake/items/<int:item_id>/split"): {"json": {"ranges": [[1, 1]]}},
    ("POST", "/api/intake/items/<int:item_id>/rotate"): {"json": {"degrees": 90}},
}


@pytest.mark.parametrize(("method", "rule", "name"), list(_long_cases()))
def test_a_very_long_path_parameter_is_refused_not_a_server_error(
    quiet_server: tuple[ServerProcess, str], method: str, rule: str, name: str
) -> None:
    """An id no row can have is the route's 404 (401 without a token); a name too long for
    any row is refused with a message; nothing is a 500."""
    server, admin = quiet_server
    values = {"container": "ward", "folder": "patient-1", "blob": "a.txt", name: LONG}
    path = PARAMETER.sub(lambda m: values.get(m.group(2), "1"), rule)
    for headers in ({"x-auth-token": admin}, {}):
        response = requests.request(
            method,
            server.base + path,
            headers=headers,
            timeout=30,
            **ID_REQUESTS.get((method, rule), {}),
        )
        assert response.status_code < 500, (response.status_code, response.text[:300])
        if f"<int:{name}>" in rule:
            assert response.status_code == (404 if headers else 401), response.text[:300]
        if response.status_code >= 400:
            assert response.json()["message"]
