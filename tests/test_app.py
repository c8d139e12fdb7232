"""Start-up, settings, the first admin, security headers and error rendering."""

from __future__ import annotations

import asyncio
import gc
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from quart.testing import QuartClient as Client
from tortoise import connections

from bff.db import fetch, keep_session_state, tortoise_config
from bff.services import app_services, running_services
from bff.users.models import Role, User
from config.settings import Settings, SettingsError, load_settings
from tests.conftest import make_settings, started_app
from tests.factories import make_staff
from tools.devserver import query_database


def test_invalid_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BFF_PORT", "eighty")
    with pytest.raises(SettingsError, match=r"^Invalid setting BFF_PORT: "):
        load_settings()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BFF_DATABASE_URL", "mysql://x"),
        ("BFF_REDIS_URL", "http://x"),
        ("BFF_STORAGE_URL", "ftp://x"),
        ("BFF_SECRET_KEY", "short"),
        ("BFF_SESSION_HOURS", "-1"),
        ("BFF_MAX_UPLOAD_MB", "0"),
    ],
)
def test_cli_fails_with_one_line_for_a_bad_setting(name: str, value: str, tmp_path: Path) -> None:
    env = {**os.environ, name: value, "BFF_VAR_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "bff", "migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"Invalid setting {name}: ")


def test_defaults() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite://var/bff.sqlite3"
    assert settings.storage_url == "file://var/storage"
    assert settings.redis_url == ""
    assert settings.public_url == "http://localhost:8000"  # passkeys refuse an IP address
    assert settings.session_hours == 8
    assert settings.max_upload_mb == 50


def test_secret_key_is_generated_once_with_mode_0600(tmp_path: Path) -> None:
    settings = load_settings(var_dir=tmp_path)
    first = settings.signing_key()
    assert len(first) >= 32
    assert load_settings(var_dir=tmp_path).signing_key() == first
    mode = stat.S_IMODE((tmp_path / "secret_key").stat().st_mode)
    assert mode == 0o600


async def test_first_start_creates_admin_from_settings(database_url: str, run_dir: Path) -> None:
    settings = make_settings(
        database_url, run_dir, admin_username="Chief", admin_password="harbour-s3cret-pass"
    )
    async with started_app(settings) as app:
        from bff.users.bootstrap import ensure_admin

        assert await ensure_admin(settings) == ("chief", None)
        assert await ensure_admin(settings) is None  # only when there is no admin
        response = await app.test_client().post(
            "/api/auth/login", json={"username": "chief", "password": "harbour-s3cret-pass"}
        )
        assert response.status_code == 200
        assert (await response.get_json())["user"]["role"] == "admin"


async def test_first_start_generates_a_strong_password(database_url: str, run_dir: Path) -> None:
    settings = make_settings(database_url, run_dir)
    async with started_app(settings) as app:
        from bff.users.bootstrap import ensure_admin

        created = await ensure_admin(settings)
        assert created is not None
        username, password = created
        assert password and len(password) >= 20
        response = await app.test_client().post(
            "/api/auth/login", json={"username": username, "password": password}
        )
        assert response.status_code == 200
        assert await User.filter(role=Role.ADMIN).count() == 1


async def test_cli_creates_users_and_resets_passwords(app: object, settings) -> None:
    from bff.auth.sessions import open_session

    env = {
        **os.environ,
        "BFF_DATABASE_URL": settings.database_url,
        "BFF_VAR_DIR": str(settings.var_dir),
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # noqa: S603
            [sys.executable, "-m", "bff", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    made = cli("users", "create", "--username", "Boss", "--name", "The Boss", "--role", "admin")
    assert made.returncode == 0, made.stderr
    assert "with password: " in made.stdout  # generated and shown once
    user = await User.get(username="boss")
    assert user.role == Role.ADMIN
    assert (
        cli("users", "create", "--username", "boss", "--name", "X", "--role", "nurse").returncode
        == 1
    )
    token = await open_session(user, settings, "127.0.0.1")
    reset = cli("users", "reset-password", "--username", "boss", "--password", "brand-new-pass")
    assert reset.returncode == 0, reset.stderr
    assert "1 session(s) ended" in reset.stdout
    client = app.test_client()  # type: ignore[attr-defined]
    assert (await client.get("/api/auth/me", headers={"x-auth-token": token})).status_code == 401
    login = await client.post(
        "/api/auth/login", json={"username": "boss", "password": "brand-new-pass"}
    )
    assert login.status_code == 200


@pytest.mark.parametrize("path", ["/api/health", "/api/nothing-here", "/openapi.json"])
async def test_security_headers_on_every_response(client: Client, path: str) -> None:
    response = await client.get(path)
    csp = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("root_path", ["", "/records"])
async def test_patient_data_is_never_cached_and_routes_cannot_drop_the_fixed_headers(
    client: Client, root_path: str
) -> None:
    """`no-store` on every /api answer, also when a proxy serves the app under a path of its
    own; the answer's X-Frame-Options and X-Content-Type-Options are the app's."""
    response = await client.get(f"{root_path}/api/health/live", root_path=root_path)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers.getlist("X-Frame-Options") == ["DENY"]
    assert response.headers.getlist("X-Content-Type-Options") == ["nosniff"]
    web = await client.get(f"{root_path}/login", root_path=root_path)
    assert "no-store" not in web.headers.get("Cache-Control", "")  # the web app's own page


@pytest.mark.parametrize(
    ("public_url", "overrides", "expected"),
    [
        ("https://records.example.org", {}, "max-age=31536000; includeSubDomains"),
        (
            "https://records.example.org",
            {"hsts_seconds": 600, "hsts_include_subdomains": False},
            "max-age=600",
        ),
        ("https://records.example.org", {"hsts_seconds": 0}, None),
        ("http://127.0.0.1:8000", {}, None),  # never over http: browsers ignore it there
    ],
)
async def test_strict_transport_security_over_https(
    database_url: str,
    run_dir: Path,
    public_url: str,
    overrides: dict[str, Any],
    expected: str | None,
) -> None:
    """Before: no answer carried Strict-Transport-Security, whatever BFF_PUBLIC_URL said."""
    settings = make_settings(database_url, run_dir, public_url=public_url, **overrides)
    async with started_app(settings) as app:
        client = app.test_client()
        for path in ("/api/health", "/api/nothing-here", "/login", "/openapi.json"):
            response = await client.get(path)
            assert response.headers.get("Strict-Transport-Security") == expected, path


async def test_unknown_api_path_is_json_404(client: Client) -> None:
    response = await client.get("/api/no/such/thing")
    assert response.status_code == 404
    assert response.content_type.startswith("application/json")
    assert (await response.get_json())["message"]


async def test_wrong_method_is_json_405(client: Client) -> None:
    response = await client.delete("/api/health")
    assert response.status_code == 405
    assert (await response.get_json())["message"]


async def test_oversized_body_is_413(client: Client) -> None:
    response = await client.post(
        "/api/auth/login", json={"username": "x" * (2 * 1024 * 1024), "password": "y"}
    )
    assert response.status_code == 413
    assert (await response.get_json())["message"]


async def test_openapi_document_lists_the_api(client: Client) -> None:
    document = await (await client.get("/openapi.json")).get_json()
    assert "/api/auth/login" in document["paths"]
    params = {p["name"] for p in document["paths"]["/api/blobs/audit"]["get"]["parameters"]}
    assert {
        "operation",
        "userId",
        "containerName",
        "folderName",
        "since",
        "until",
        "cursor",
    } <= params


async def test_interactive_docs_are_served_locally(client: Client) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    html = await page.get_data(as_text=True)
    assert "<script>" not in html  # no inline script: the CSP forbids it
    assert "https://" not in html  # no CDN
    for asset in (
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
        "/docs/init.js",
    ):
        assert (await client.get(asset)).status_code == 200, asset
    assert (await client.get("/docs/assets/../../app.py")).status_code == 404


def test_cli_refuses_a_short_password(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "BFF_DATABASE_URL": f"sqlite://{tmp_path}/db.sqlite3",
        "BFF_VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bff",
            "users",
            "create",
            "--username",
            "shorty",
            "--name",
            "S",
            "--role",
            "nurse",
            "--password",
            "short",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith(
        "The password is too short: use at least 12 characters."
    )


async def test_openapi_operation_ids_are_unique(client: Client) -> None:
    document = await (await client.get("/openapi.json")).get_json()
    ids = [
        operation["operationId"]
        for path in document["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"rename these handlers: {duplicates}"  # typed clients need unique ids


def test_api_schema_names_are_unique() -> None:
    """OpenAPI names components by class name: two models of one name would merge silently."""
    import importlib
    import pkgutil

    from pydantic import BaseModel

    import bff

    for module in pkgutil.walk_packages(bff.__path__, "bff."):
        if not module.name.startswith("bff.migrations"):
            importlib.import_module(module.name)
    seen: dict[str, str] = {}
    clashes = []

    def walk(cls: type[BaseModel]) -> None:
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("bff."):
                where = f"{sub.__module__}.{sub.__qualname__}"
                if seen.setdefault(sub.__name__, where) != where:
                    clashes.append((seen[sub.__name__], where))
            walk(sub)

    walk(BaseModel)
    assert not clashes, clashes


async def test_bodies_that_are_not_utf8_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.post(
        "/api/auth/register",
        data=b"\x8fX#V\xff\x04",
        headers={**admin.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert (await response.get_json())["message"] == "The request body must be UTF-8 encoded JSON."


async def test_values_longer_than_their_column_are_400(client: Client) -> None:
    response = await client.post("/api/auth/login", json={"username": "0" * 199, "password": "x"})
    assert response.status_code == 400
    assert "longer than allowed" in (await response.get_json())["message"]


async def test_a_started_app_leaves_what_it_loaded_out_of_full_collections(
    database_url: str, run_dir: Path
) -> None:
    """A full garbage collection must not walk every module and schema at each request."""
    async with started_app(make_settings(database_url, run_dir)) as _:
        assert gc.get_freeze_count() > 10_000


@pytest.mark.parametrize(
    ("url", "maxsize", "extra"),
    [
        ("postgresql://u@h:5432/db", "20", {}),
        ("postgres://u@h/db?ssl=true", "20", {"ssl": True}),
        ("postgres://u@h/db?maxsize=3", "3", {}),
    ],
)
def test_postgres_pool_is_sized_unless_the_url_says_and_keeps_session_state(
    url: str, maxsize: str, extra: dict[str, object]
) -> None:
    connection = tortoise_config(url)["connections"]["default"]
    assert connection["engine"] == "tortoise.backends.asyncpg"
    credentials = connection["credentials"]
    assert credentials["maxsize"] == maxsize
    assert credentials["reset"] is keep_session_state
    assert credentials["database"] == "db" and credentials["user"] == "u"
    assert {k: credentials[k] for k in extra} == extra


def test_a_sqlite_url_is_kept_as_it_is() -> None:
    url = "sqlite://var/bff.sqlite3"
    assert tortoise_config(url)["connections"]["default"] == url


async def test_a_pooled_postgres_connection_is_not_reset_on_release(
    database_url: str, run_dir: Path
) -> None:
    """asyncpg's default reset (`... RESET ALL`) is a round trip after every query: the app's
    pool is made without it (bff.db.keep_session_state), and a transaction left open is still
    rolled back."""
    if not database_url.startswith("postgres"):
        pytest.skip("PostgreSQL only: SQLite has no connection pool")
    async with started_app(make_settings(database_url, run_dir)) as _:
        pool = connections.get("default")._pool
        assert pool._reset is keep_session_state
        pid = (await fetch("SELECT pg_backend_pid() AS pid"))[0]["pid"]
        # What the connection ran last, seen from outside once it is back in the pool.
        last = await query_database(
            database_url, f"SELECT query FROM pg_stat_activity WHERE pid = {int(pid)}"
        )
        assert last == [("SELECT pg_backend_pid() AS pid",)]
        async with pool.acquire() as raw:
            await raw.execute("BEGIN")
            left_open = await raw.fetchval("SELECT pg_backend_pid()")
        state = await query_database(
            database_url, f"SELECT state, query FROM pg_stat_activity WHERE pid = {left_open}"
        )
        assert state == [("idle", "ROLLBACK")]


async def test_file_work_gets_more_threads_than_asyncio_gives(
    database_url: str, run_dir: Path
) -> None:
    async with started_app(make_settings(database_url, run_dir)) as _:
        loop = asyncio.get_running_loop()
        names = await asyncio.gather(
            *(loop.run_in_executor(None, _slow_thread_name) for _ in range(12))
        )
        assert len(set(names)) == 12  # twelve at once: asyncio's default would allow 6 here
        assert all(name.startswith("bff-io") for name in names)


def _slow_thread_name() -> str:
    time.sleep(0.2)
    return threading.current_thread().name


async def test_hooks_run_as_quart_runs_them_while_their_kind_is_remembered(app: Any) -> None:
    """BffApp remembers which functions are coroutine functions (Quart asks for every hook
    and view on every request): a coroutine hook still runs on the event loop, a plain one
    still in a thread, every time."""
    loop_thread = threading.get_ident()
    seen: list[tuple[str, int]] = []

    async def async_hook() -> None:
        seen.append(("async", threading.get_ident()))

    def sync_hook() -> None:
        seen.append(("sync", threading.get_ident()))

    app.before_request(async_hook)
    app.before_request(sync_hook)
    client = app.test_client()
    for _ in range(3):
        assert (await client.get("/api/health/live")).status_code == 200
    assert [kind for kind, _ in seen] == ["async", "sync"] * 3
    assert all(thread == loop_thread for kind, thread in seen if kind == "async")
    assert all(thread != loop_thread for kind, thread in seen if kind == "sync")
    assert app.ensure_async(async_hook) is async_hook
    assert app.ensure_async(sync_hook) is not sync_hook
    # Only plain functions are remembered: bound methods are made anew on each access, and a
    # callable object may be unhashable.
    assert all(type(func).__name__ == "function" for func in app._coroutine_functions)

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self) -> None:
            seen.append(("object", threading.get_ident()))

    app.before_request(Unhashable())
    assert (await client.get("/api/health/live")).status_code == 200
    assert seen[-1][0] == "object"


async def test_running_services_is_the_apps_inside_it_and_none_outside(app: Any) -> None:
    assert running_services() is None  # the command line: no app, nothing cached
    async with app.app_context():
        assert running_services() is app_services(app)
