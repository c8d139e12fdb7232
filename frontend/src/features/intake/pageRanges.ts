/** Page ranges as people type them ('1-2, 3') for a split: [first, last] pairs, 1-based, both
 * included, or what is wrong with them. Pure; the server checks them again. */

/** The server's limit on the parts of one split (bff/intake/schemas.py SplitItem). */
export const MAX_PARTS = 50;

export type ParsedRanges = { ranges: [number, number][]; error: null } | { ranges: null; error: string };

const RANGE = /^(\d{1,5})\s*(?:[-–]\s*(\d{1,5}))?$/;

/** `pages`: the document's page count when known, to refuse a page it does not have. */
export function parsePageRanges(typed: string, pages: number | null = null): ParsedRanges {
  const parts = typed
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) return { ranges: null, error: 'Give the page ranges, e.g. 1-2, 3.' };
  if (parts.length > MAX_PARTS) return { ranges: null, error: `Give at most ${MAX_PARTS} page ranges.` };
  const ranges: [number, number][] = [];
  for (const part of parts) {
    const match = RANGE.exec(part);
    if (!match) return { ranges: null, error: `“${part}” is not a page or a range of pages (e.g. 1-2).` };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1) return { ranges: null, error: 'Pages are counted from 1.' };
    if (last < first) return { ranges: null, error: `The range ${first}-${last} runs backwards.` };
    if (pages !== null && last > pages) return { ranges: null, error: `This document has pages 1 to ${pages}; there is no page ${last}.` };
    ranges.push([first, last]);
  }
  // A page in two parts would be written twice (the server refuses it too, in these words).
  const total = ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  if (pages !== null && total > pages)
    return { ranges: null, error: `These ranges hold ${total} pages in all, but this document has ${pages}: ${ONE_PART}` };
  const ordered = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (let i = 1; i < ordered.length; i += 1) {
    const [first, last] = ordered[i - 1]!;
    const [after, end] = ordered[i]!;
    if (after <= last) return { ranges: null, error: `The ranges ${span(first, last)} and ${span(after, end)} overlap: ${ONE_PART}` };
  }
  return { ranges, error: null };
}

const ONE_PART = 'each page can go into one part only.';
const span = (first: number, last: number): string => (first === last ? String(first) : `${first}-${last}`);
