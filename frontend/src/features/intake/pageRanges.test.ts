import { MAX_PARTS, parsePageRanges } from './pageRanges';

describe('parsePageRanges', () => {
  it('reads pages and ranges as people type them', () => {
    expect(parsePageRanges('1-2, 3')).toEqual({ ranges: [[1, 2], [3, 3]], error: null });
    expect(parsePageRanges(' 1 – 2 ;4-6 ', 6)).toEqual({ ranges: [[1, 2], [4, 6]], error: null });
  });

  it('refuses what is no range, a range backwards, page 0 and a page past the end', () => {
    expect(parsePageRanges('').error).toBe('Give the page ranges, e.g. 1-2, 3.');
    expect(parsePageRanges('1-2, x').error).toBe('“x” is not a page or a range of pages (e.g. 1-2).');
    expect(parsePageRanges('3-1').error).toBe('The range 3-1 runs backwards.');
    expect(parsePageRanges('0-1').error).toBe('Pages are counted from 1.');
    expect(parsePageRanges('1-5', 4).error).toBe('This document has pages 1 to 4; there is no page 5.');
    expect(parsePageRanges(Array.from({ length: MAX_PARTS + 1 }, (_, i) => String(i + 1)).join(',')).error).toBe(`Give at most ${MAX_PARTS} page ranges.`);
  });

  it('refuses ranges that share a page or hold more pages than the document (each part is written out whole)', () => {
    expect(parsePageRanges('1-5, 1-5', 5).error).toBe('These ranges hold 10 pages in all, but this document has 5: each page can go into one part only.');
    expect(parsePageRanges('2, 4-5, 1-2', 5).error).toBe('The ranges 1-2 and 2 overlap: each page can go into one part only.');
    expect(parsePageRanges('1-50, 1-50').error).toBe('The ranges 1-50 and 1-50 overlap: each page can go into one part only.');
    expect(parsePageRanges('3-5, 1-2', 5)).toEqual({ ranges: [[3, 5], [1, 2]], error: null });
  });
});
