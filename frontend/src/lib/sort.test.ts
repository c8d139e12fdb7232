import { naturalCompare, naturalSort } from './sort';

describe('natural sort', () => {
  it('orders by text prefix, then the numeric suffix', () => {
    expect(naturalSort(['patient-10', 'patient-2', 'patient-1'])).toEqual(['patient-1', 'patient-2', 'patient-10']);
  });
  it('compares prefixes case-insensitively and puts names without a number first', () => {
    expect(naturalSort(['Ward-3', 'alpha', 'ward-1', 'ward'])).toEqual(['alpha', 'ward', 'ward-1', 'Ward-3']);
  });
  it('sorts different prefixes alphabetically before numbers', () => {
    expect(naturalSort(['b-1', 'a-20', 'a-3'])).toEqual(['a-3', 'a-20', 'b-1']);
  });
  it('sorts objects by a name and leaves the input alone', () => {
    const input = [{ n: 'f-11' }, { n: 'f-9' }];
    expect(naturalSort(input, (x) => x.n).map((x) => x.n)).toEqual(['f-9', 'f-11']);
    expect(input[0]?.n).toBe('f-11');
  });
  it('is a consistent comparator', () => {
    expect(naturalCompare('x-2', 'x-2')).toBe(0);
    expect(naturalCompare('x-2', 'x-10')).toBeLessThan(0);
    expect(naturalCompare('x-10', 'x-2')).toBeGreaterThan(0);
  });
});
