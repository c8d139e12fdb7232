import { EMPTY_LOADS_TO_CONFIRM, isEmptyConfirmed, nextEmptyCount } from './emptyLoads';

describe('2 consecutive empty loads', () => {
  it('needs two empty loads in a row', () => {
    expect(EMPTY_LOADS_TO_CONFIRM).toBe(2);
    const one = nextEmptyCount(0, true);
    expect(isEmptyConfirmed(one)).toBe(false);
    expect(isEmptyConfirmed(nextEmptyCount(one, true))).toBe(true);
  });
  it('starts again after a non-empty load', () => {
    expect(nextEmptyCount(1, false)).toBe(0);
    expect(isEmptyConfirmed(nextEmptyCount(nextEmptyCount(1, false), true))).toBe(false);
  });
});
