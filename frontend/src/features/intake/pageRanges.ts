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
  return { ranges, error: null };
}
