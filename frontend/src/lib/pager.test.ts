import { clampPage, pageCount, pagerItems } from './pager';

describe('pageCount and clampPage', () => {
  it('counts pages, with one page for an empty list', () => {
    expect(pageCount(0, 12)).toBe(1);
    expect(pageCount(12, 12)).toBe(1);
    expect(pageCount(13, 12)).toBe(2);
    expect(pageCount(140, 20)).toBe(7);
    expect(pageCount(141, 20)).toBe(8);
    expect(pageCount(5, 0)).toBe(1);
  });
  it('clamps a requested page into range', () => {
    expect(clampPage(0, 3)).toBe(1);
    expect(clampPage(9, 3)).toBe(3);
    expect(clampPage(Number.NaN, 3)).toBe(1);
    expect(clampPage(2.7, 3)).toBe(2);
    expect(clampPage(4, 0)).toBe(1);
  });
});

describe('pagerItems', () => {
  it('shows the single page of a one-page list', () => {
    expect(pagerItems(1, 1)).toEqual([1]);
    expect(pagerItems(1, 0)).toEqual([1]);
  });
  it('shows every page up to 7 pages', () => {
    expect(pagerItems(1, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pagerItems(7, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
  it('windows 8 pages: 1 to 3, ellipsis, last page', () => {
    expect(pagerItems(1, 8)).toEqual([1, 2, 3, 'ellipsis', 8]);
    expect(pagerItems(2, 8)).toEqual([1, 2, 3, 'ellipsis', 8]);
    expect(pagerItems(3, 8)).toEqual([1, 2, 3, 4, 'ellipsis', 8]);
  });
  it('keeps the current page and its neighbours in the middle', () => {
    expect(pagerItems(5, 10)).toEqual([1, 'ellipsis', 4, 5, 6, 'ellipsis', 10]);
    // A gap of exactly one page shows that page rather than an ellipsis.
    expect(pagerItems(4, 10)).toEqual([1, 2, 3, 4, 5, 'ellipsis', 10]);
  });
  it('ends with the last three pages near the end', () => {
    expect(pagerItems(10, 10)).toEqual([1, 'ellipsis', 8, 9, 10]);
    expect(pagerItems(9, 10)).toEqual([1, 'ellipsis', 8, 9, 10]);
    expect(pagerItems(8, 8)).toEqual([1, 'ellipsis', 6, 7, 8]);
  });
  it('clamps an out-of-range current page', () => {
    expect(pagerItems(99, 8)).toEqual([1, 'ellipsis', 6, 7, 8]);
    expect(pagerItems(-3, 8)).toEqual([1, 2, 3, 'ellipsis', 8]);
  });
});
