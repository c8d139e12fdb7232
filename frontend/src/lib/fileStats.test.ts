import { fileTypeStats, formatPercent, percentOf } from './fileStats';

describe('percentOf', () => {
  it('is 0 with no files', () => {
    expect(percentOf(0, 0)).toBe(0);
    expect(percentOf(3, 0)).toBe(0);
  });
  it('rounds to one decimal', () => {
    expect(percentOf(1, 3)).toBe(33.3);
    expect(percentOf(2, 3)).toBe(66.7);
    expect(percentOf(5, 5)).toBe(100);
  });
});

describe('fileTypeStats', () => {
  it('is empty with no files', () => {
    expect(fileTypeStats({})).toEqual([]);
    expect(fileTypeStats({ pdf: 0 })).toEqual([]);
  });
  it('sorts by count descending whatever the key order, ties by name', () => {
    expect(fileTypeStats({ txt: 1, none: 2, pdf: 5, jpg: 2 }, 10)).toEqual([
      { extension: 'pdf', count: 5, percent: 50 },
      { extension: 'jpg', count: 2, percent: 20 },
      { extension: 'none', count: 2, percent: 20 },
      { extension: 'txt', count: 1, percent: 10 },
    ]);
  });
  it('uses the sum of counts when no total is given', () => {
    expect(fileTypeStats({ pdf: 1, txt: 2 }).map((s) => s.percent)).toEqual([66.7, 33.3]);
  });
});

describe('formatPercent', () => {
  it('drops a needless decimal', () => {
    expect(formatPercent(100)).toBe('100%');
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(33.3)).toBe('33.3%');
  });
});
