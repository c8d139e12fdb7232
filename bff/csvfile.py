"""The one CSV writer of the product: every text cell quoted, no cell a spreadsheet evaluates.

A spreadsheet reads a cell starting with `= + - @` (or a tab, CR or LF it strips first) as a
formula (CSV injection). Quoting alone is not enough: a spreadsheet that splits on `;` or a
tab (most of Europe's locale default), or a person pasting a cell, starts a new cell after
such a separator inside the text (and a reader that ignores quotes, after a line break). So a
formula trigger at the start of the text and after every `,` `;` tab, CR or LF in it (spaces
between allowed) gets an apostrophe before it, which spreadsheets show as text and never
evaluate.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

# Where a cell could begin (the text's start, or after a separator and any spaces) followed by
# a formula trigger: an apostrophe goes in before the trigger.
_FORMULA = re.compile(r"(?:^|(?<=[,;\t\r\n]))( *)(?=[=+\-@\t\r\n])")
Cell = str | int | None


def safe_cell(value: object) -> str:
    """value as the text of a CSV cell no spreadsheet evaluates."""
    text = "" if value is None else str(value)
    return _FORMULA.sub(r"\1'", text)


class CsvWriter:
    """Rows to UTF-8 CSV bytes a batch at a time (for streaming): text cells are quoted and
    guarded by safe_cell, integers are written bare; the first batch starts with a byte-order
    mark (so spreadsheets read UTF-8) and lines end in CRLF (RFC 4180)."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
        self._buffer.write("\ufeff")

    def encode(self, rows: Iterable[Sequence[Cell]]) -> bytes:
        """The CSV of rows (after the byte-order mark, on the first call)."""
        self._writer.writerows(
            [cell if isinstance(cell, int) else safe_cell(cell) for cell in row] for row in rows
        )
        data = self._buffer.getvalue().encode()
        self._buffer.seek(0)
        self._buffer.truncate()
        return data
