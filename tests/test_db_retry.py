"""The read retry of a lost database connection (bff/db.py `retry_while_unreachable`): a read
is run again, work that wrote something (an audit entry, a committed transaction) never is,
so a GET that audits or opens an emergency grant is not done twice by a database blip."""

from __future__ import annotations

import pytest

from bff.db import retry_while_unreachable, wrote


async def test_a_read_is_run_again_while_the_connection_fails() -> None:
    calls = 0

    async def read() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ConnectionResetError("the database restarted")
        return "rows"

    assert await retry_while_unreachable(read, 2.0) == "rows"
    assert calls == 3


async def test_work_that_wrote_is_never_run_again() -> None:
    calls = 0

    async def audited_read() -> str:
        nonlocal calls
        calls += 1
        wrote()  # e.g. record_alone, or a transaction reaching its COMMIT
        raise ConnectionResetError("lost after the write")

    with pytest.raises(ConnectionResetError):
        await retry_while_unreachable(audited_read, 2.0)
    assert calls == 1


async def test_a_write_outside_a_retry_notes_nothing() -> None:
    wrote()  # no attempt running: nothing to note, nothing fails
