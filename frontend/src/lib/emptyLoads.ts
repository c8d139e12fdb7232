/** 'No users' is confirmed only after 2 consecutive empty loads (spec sections 2 and 9). */
export const EMPTY_LOADS_TO_CONFIRM = 2;

/** The count of consecutive empty loads after one more load. */
export function nextEmptyCount(previous: number, loadWasEmpty: boolean): number {
  return loadWasEmpty ? previous + 1 : 0;
}

export function isEmptyConfirmed(count: number): boolean {
  return count >= EMPTY_LOADS_TO_CONFIRM;
}
