import { formatCountdown, remainingMs } from './countdown';

describe('countdown', () => {
  it('measures time left, never below zero', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(remainingMs('2026-01-01T10:15:00Z', now)).toBe(15 * 60_000);
    expect(remainingMs('2026-01-01T09:59:00Z', now)).toBe(0);
    expect(remainingMs('not a date', now)).toBe(0);
  });
  it('shows m:ss, h:mm:ss, and rounds partial seconds up', () => {
    expect(formatCountdown(0)).toBe('0:00');
    expect(formatCountdown(1)).toBe('0:01');
    expect(formatCountdown(59_000)).toBe('0:59');
    expect(formatCountdown(15 * 60_000)).toBe('15:00');
    expect(formatCountdown(3_600_000 + 61_000)).toBe('1:01:01');
    expect(formatCountdown(-5)).toBe('0:00');
  });
});
