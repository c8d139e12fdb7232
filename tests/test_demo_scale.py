"""The scale demo's seeding (`python -m tools.scale_demo`), at small sizes, on each storage."""

from __future__ import annotations

from quart import Quart

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.containers.models import Container, Folder
from bff.files.models import StoredFile
from bff.services import app_services
from bff.users.models import Role, User
from config.settings import Settings
from storage.base import Storage
from tools.scale_demo import load_scale_demo
from tools.scale_layout import SCALE_CONTAINER_PREFIX, ScaleSizes, scale_staff

SIZES = ScaleSizes(
    staff=3, containers=2, folders=10, files=53, containers_per_staff=2, folders_per_staff=4
)
PASSWORD = "scale-demo-password"


async def _seed(app: Quart, password: str | None = PASSWORD) -> list[str]:
    settings: Settings = app_services(app).settings
    storage: Storage = app_services(app).storage
    return await load_scale_demo(
        settings, storage, SIZES, staff_password=password, progress=lambda _: None
    )


async def _counts() -> dict[str, int]:
    return {
        "users": await User.all().count(),
        "containers": await Container.all().count(),
        "folders": await Folder.all().count(),
        "files": await StoredFile.all().count(),
        "container_assignments": await ContainerAssignment.all().count(),
        "folder_assignments": await FolderAssignment.all().count(),
        "audit": await AuditLog.all().count(),
    }


async def test_seeds_the_requested_volume(storage_app: Quart) -> None:
    await _seed(storage_app)
    counts = await _counts()
    assert counts["users"] == SIZES.staff + 1  # and the first admin
    assert counts["containers"] == SIZES.containers
    assert counts["folders"] == SIZES.folders
    assert counts["files"] == SIZES.files
    roles = set(await User.filter(role__not=Role.ADMIN).values_list("role", flat=True))
    assert roles == {Role.DOCTOR, Role.NURSE, Role.ASSISTANT}
    containers = await Container.all().values_list("name", flat=True)
    assert all(str(name).startswith(SCALE_CONTAINER_PREFIX) for name in containers)
    per_container = [await Folder.filter(container__name=n).count() for n in containers]
    assert sorted(per_container) == [5, 5]  # spread evenly


async def test_files_are_in_storage_and_indexed(storage_app: Quart) -> None:
    await _seed(storage_app)
    storage: Storage = app_services(storage_app).storage
    for folder in await Folder.all().select_related("container"):
        rows = {r.name: r for r in await StoredFile.filter(folder=folder)}
        assert len(rows) in (5, 6)  # 53 files over 10 folders
        stored = {i.name: i for i in await storage.list_files(folder.container.name, folder.name)}
        assert set(stored) == set(rows)
        for name, row in rows.items():
            assert stored[name].size == row.size > 0
            assert row.extension == name.rpartition(".")[2]
    row = await StoredFile.filter(name__endswith=".txt").select_related("folder__container").first()
    assert row is not None
    async with await storage.open(row.folder.container.name, row.folder.name, row.name) as stream:
        text = (await stream.read_all()).decode()
    assert "synthetic" in text.lower() and row.folder.name in text


async def test_every_staff_member_has_assignments(storage_app: Quart) -> None:
    await _seed(storage_app)
    for username, _, _ in scale_staff(SIZES):
        user = await User.get(username=username)
        containers = set(
            await ContainerAssignment.filter(user=user).values_list("container_id", flat=True)
        )
        folders = await FolderAssignment.filter(user=user).values_list(
            "folder__container_id", flat=True
        )
        assert len(containers) == SIZES.containers_per_staff
        assert len(folders) == SIZES.folders_per_staff
        assert set(folders) <= containers  # folders only inside assigned containers


async def test_a_second_run_adds_nothing(storage_app: Quart) -> None:
    first = await _seed(storage_app, password=None)
    before = await _counts()
    storage: Storage = app_services(storage_app).storage
    folder = await Folder.all().select_related("container").first()
    assert folder is not None
    listed = await storage.list_files(folder.container.name, folder.name)
    second = await _seed(storage_app, password=None)
    assert await _counts() == before
    assert await storage.list_files(folder.container.name, folder.name) == listed  # not rewritten
    assert any("doctor.001" in line and "password:" in line for line in first)
    assert not any("password:" in line for line in second)


async def test_staff_sign_in_with_the_given_password(storage_app: Quart) -> None:
    await _seed(storage_app)
    client = storage_app.test_client()
    username = scale_staff(SIZES)[1][0]
    response = await client.post(
        "/api/auth/login", json={"username": username, "password": PASSWORD}
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    token = (await response.get_json())["token"]
    response = await client.get(
        "/api/assignments/my-assignments/stats", headers={"x-auth-token": token}
    )
    stats = await response.get_json()
    assert stats["summary"]["folderCount"] == SIZES.folders_per_staff
    assert stats["summary"]["totalFiles"] > 0
