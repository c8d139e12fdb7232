"""The private folders of intake work (bff/intake/workspace.py) are removed however their work
ends, a cancellation at any moment included (a client gone, the routing or the app stopping):
a folder left behind stays in var/jobs/ for the life of the process (only a dead process's are
swept), with whatever copy of a patient's document it holds."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from bff.intake.workspace import private_folder
from config.settings import Settings


def _ours(settings: Settings) -> set[Path]:
    jobs = settings.var_dir / "jobs"
    return (
        {p for p in jobs.iterdir() if p.name.startswith(f"{os.getpid()}-")}
        if jobs.exists()
        else set()
    )


async def test_a_folder_is_removed_whenever_its_work_is_cancelled(settings: Settings) -> None:
    before = _ours(settings)
    entered = 0

    async def work() -> None:
        nonlocal entered
        async with private_folder(settings) as folder:
            entered += 1
            (folder / "content").write_bytes(b"%PDF-1.7 a patient's letter")
            await asyncio.sleep(10)

    # Cancelled after 0, 1, 2... turns of the loop: before, while and after the folder is made.
    for turns in range(40):
        task = asyncio.create_task(work())
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert _ours(settings) == before, f"left after {turns} turns"
    assert entered  # the later cancellations came inside the block


async def test_a_folder_is_removed_after_its_work_ends_or_fails(settings: Settings) -> None:
    before = _ours(settings)
    async with private_folder(settings) as folder:
        (folder / "part-1.pdf").write_bytes(b"%PDF-1.7")
    assert not folder.exists()
    try:
        async with private_folder(settings) as folder:
            raise ValueError("the worker failed")
    except ValueError:
        pass
    assert not folder.exists()
    assert _ours(settings) == before
