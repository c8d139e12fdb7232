"""Where a live connection's memory goes: bench/live_bench.py --trace serves this module
(`hypercorn bench.live_trace:app`, the same app as bff.asgi) so the worker runs with tracemalloc
on; each SIGUSR1 dumps a snapshot into $LIVE_TRACE_DIR, and `compare` prints what grew between
two of them. Tracing starts at the first snapshot, so the second holds what was allocated
since and is still alive. A diagnostic: tracemalloc slows the worker and adds its own memory,
so the other figures of a --trace run are not the bench's."""

from __future__ import annotations

import os
import signal
import tracemalloc
from pathlib import Path

_taken = 0


def _dump(signum: int, frame: object) -> None:
    global _taken
    _taken += 1
    if not tracemalloc.is_tracing():  # the first: trace from now on (what the connections add)
        tracemalloc.start(8)
    directory = Path(os.environ["LIVE_TRACE_DIR"])
    tracemalloc.take_snapshot().dump(str(directory / f"snapshot-{_taken}.pickle"))
    (directory / f"snapshot-{_taken}.done").touch()


def compare(before: Path, after: Path, connections: int, top: int = 25) -> None:
    """Print the allocation sites that grew most, per connection."""
    old = tracemalloc.Snapshot.load(str(before))
    new = tracemalloc.Snapshot.load(str(after))
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
    stats = new.filter_traces(ignore).compare_to(old.filter_traces(ignore), "traceback")
    total = sum(stat.size_diff for stat in stats)
    print(f"traced Python memory grew {total / 1024 / max(1, connections):.1f} KB per connection")
    for stat in stats[:top]:
        frames = [
            f"{Path(frame.filename).name}:{frame.lineno}" for frame in reversed(stat.traceback)
        ]
        print(
            f"  {stat.size_diff / 1024 / max(1, connections):6.2f} KB/conn"
            f" {stat.count_diff / max(1, connections):5.1f} blocks/conn  {' < '.join(frames[:6])}"
        )


if os.environ.get("LIVE_TRACE_DIR"):
    signal.signal(signal.SIGUSR1, _dump)
    from bff.asgi import app as app
