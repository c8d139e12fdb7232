/**
 * A snippet's matches as pieces of text, some of them marked: the screen renders each piece as
 * text (a <mark> for a match), never the server's words as HTML.
 */

export interface Piece {
  text: string;
  match: boolean;
}

/**
 * `text` cut at the highlight ranges: [start, end) in UTF-16 code units, as the server counts
 * them (String.slice). Ranges out of order, overlapping, empty or outside the text are sorted,
 * merged, clipped or dropped: a wrong offset can lose a mark, never text.
 */
export function highlightPieces(text: string, highlights: readonly (readonly number[])[]): Piece[] {
  const ranges = highlights
    .filter((range) => range.length === 2 && range.every((n) => Number.isInteger(n)))
    .map(([start, end]) => [Math.max(0, start as number), Math.min(text.length, end as number)] as const)
    .filter(([start, end]) => start < end)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [start, end] of ranges) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  const pieces: Piece[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) pieces.push({ text: text.slice(at, start), match: false });
    pieces.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length || pieces.length === 0) pieces.push({ text: text.slice(at), match: false });
  return pieces;
}
