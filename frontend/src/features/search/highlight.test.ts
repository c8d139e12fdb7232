import { highlightPieces } from './highlight';

const marked = (text: string, highlights: number[][]) =>
  highlightPieces(text, highlights)
    .map((p) => (p.match ? `[${p.text}]` : p.text))
    .join('');

describe('highlightPieces', () => {
  it('marks each range of the text', () => {
    expect(marked('Penicillin allergy noted', [[0, 10], [19, 24]])).toBe('[Penicillin] allergy [noted]');
  });

  it('keeps the whole text when there is nothing to mark', () => {
    expect(highlightPieces('no match here', [])).toEqual([{ text: 'no match here', match: false }]);
    expect(highlightPieces('', [])).toEqual([{ text: '', match: false }]);
  });

  it('sorts, merges overlapping and touching ranges', () => {
    expect(marked('abcdefgh', [[4, 6], [0, 2], [1, 3], [3, 4]])).toBe('[abcdef]gh');
  });

  it('clips ranges past the end and drops empty, reversed, negative or malformed ones: no text is lost', () => {
    expect(marked('short', [[3, 99]])).toBe('sho[rt]');
    expect(marked('short', [[-4, 2]])).toBe('[sh]ort');
    expect(marked('short', [[2, 2], [4, 1], [1], [1.5, 3], [9, 12]])).toBe('short');
  });

  it('counts in UTF-16 code units, as the server does (String.slice)', () => {
    // The emoji takes two code units: "allergy" starts at 3.
    expect(marked('😷 allergy', [[3, 10]])).toBe('😷 [allergy]');
  });

  it('gives markup in the text back as text, never as HTML', () => {
    expect(highlightPieces('<b>x</b>', [[3, 4]])).toEqual([
      { text: '<b>', match: false },
      { text: 'x', match: true },
      { text: '</b>', match: false },
    ]);
  });
});
