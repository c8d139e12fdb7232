import { suggestionJson } from './intakeTestData';
import { excerptSegments, reasons, suggestionLine, suggestionOf } from './suggestion';

const RAW = suggestionJson([
  { kind: 'name', start: 20, end: 29, text: 'SMITH Ann' },
  { kind: 'record', start: 2, end: 10, text: '00123-45' },
  { kind: 'hobby', start: 0, end: 1, text: 'x' },
]);

describe('suggestionOf', () => {
  it('reads the folder and the evidence in text order, leaving out what it cannot read', () => {
    const suggestion = suggestionOf({ suggestion: RAW });
    expect(suggestion).toEqual({
      container: 'ward-a',
      folder: 'patient-1',
      patient: null,
      excerpts: [],
      evidence: [
        { kind: 'record', start: 2, end: 10, text: '00123-45' },
        { kind: 'name', start: 20, end: 29, text: 'SMITH Ann' },
      ],
    });
  });

  it('is null without a folder', () => {
    expect(suggestionOf({ suggestion: null })).toBeNull();
    expect(suggestionOf({ suggestion: { container: 'ward-a', evidence: [] } })).toBeNull();
  });

  it('says why: a record number first, then the name and the date of birth', () => {
    const suggestion = suggestionOf({ suggestion: { ...RAW, evidence: [...RAW.evidence, { kind: 'birth_date', start: 1, end: 2, text: '3 March 1961' }] } })!;
    expect(reasons(suggestion.evidence)).toBe('record number 00123-45, name SMITH Ann, date of birth 3 March 1961');
    expect(suggestionLine(suggestion, 'Ann Smith')).toBe(
      'Suggested: Ann Smith — because: record number 00123-45, name SMITH Ann, date of birth 3 March 1961',
    );
    expect(suggestionLine(suggestion)).toMatch(/^Suggested: ward-a \/ patient-1 — because/);
  });
});

describe('excerptSegments', () => {
  const evidence = [
    { kind: 'record' as const, start: 6, end: 14, text: '00123-45' },
    { kind: 'name' as const, start: 40, end: 49, text: 'SMITH Ann' },
  ];

  it('cuts an excerpt at the evidence inside it, offsets counted in characters', () => {
    // An emoji is one character to the server (Python) and two UTF-16 units here.
    expect(excerptSegments({ start: 2, text: '😀RN 00123-45, for' }, evidence)).toEqual([
      { text: '😀RN ', kind: null },
      { text: '00123-45', kind: 'record' },
      { text: ', for', kind: null },
    ]);
  });

  it('marks the part of a piece the excerpt holds, and leaves plain text alone', () => {
    expect(excerptSegments({ start: 44, text: 'H Ann.' }, evidence)).toEqual([
      { text: 'H Ann', kind: 'name' },
      { text: '.', kind: null },
    ]);
    expect(excerptSegments({ start: 100, text: 'nothing' }, evidence)).toEqual([{ text: 'nothing', kind: null }]);
  });
});

describe('a mailed cover sheet’s suggestion', () => {
  it('says the sheet as its reason', () => {
    const suggestion = suggestionOf({ suggestion: suggestionJson([{ kind: 'sheet', start: 0, end: 0, text: 'cover sheet 7f3a' }], []) })!;
    expect(suggestionLine(suggestion)).toBe('Suggested: ward-a / patient-1 — because: cover sheet 7f3a');
  });
});
