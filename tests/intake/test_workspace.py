"""The private work folders in var/jobs/ (bff/jobs/service.py `work_folder`: the intake's, the
text jobs', the viewer's and the upload checks') are removed however their work ends, a
cancellation at any moment included (a client gone, the routing or the app stopping): a folder
left behind stays for the life of the process (only a dead process's are swept), with whatever
copy of a patient's document it holds."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from bff.intake.workspace import private_folder
from bff.jobs.service import work_dir, work_folder
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

    # Cancelled after 0, 1, 2... turns of the loop: before, while and after the folder is made,
    # until three cancellations have come inside the block (how many turns that takes depends
    # on how soon the threads answer: bounded in time, not in turns).
    inside = 0
    turns = 0
    async with asyncio.timeout(60):
        while inside < 3:
            was = entered
            task = asyncio.create_task(work())
            for _ in range(turns):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            assert _ours(settings) == before, f"left after {turns} turns"
            inside += entered - was
            turns += 1 if turns < 64 else turns // 4  # one by one, then faster


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


async def test_a_removal_waiting_for_a_thread_is_not_called_off_by_a_second_cancellation(
    settings: Settings,
) -> None:
    """The loop's threads all busy (a burst of work): a task cancelled in its folder queues the
    removal, then is cancelled again (the app stopping) before a thread takes it. The removal
    still happens once a thread is free (a removal called off with its waiting future was
    dropped, the folder left for the life of the process)."""
    before = _ours(settings)
    root = work_dir(settings)
    inside = asyncio.Event()
    made: list[Path] = []

    async def work() -> None:
        async with work_folder(root) as folder:
            made.append(folder)
            inside.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(work())
    await inside.wait()
    gate = threading.Event()
    busy = [asyncio.create_task(asyncio.to_thread(gate.wait, 10)) for _ in range(64)]
    await asyncio.sleep(0.2)  # every thread of the loop's executor waits on the gate
    task.cancel()
    await asyncio.sleep(0)  # its removal is queued behind them
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    gate.set()
    await asyncio.gather(*busy)
    async with asyncio.timeout(30):
        while made[0].exists():  # noqa: ASYNC110 - a thread removes it
            await asyncio.sleep(0.01)
    assert _ours(settings) == before
