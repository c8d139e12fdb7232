import { describe, expect, it } from 'vitest';
import { ApiError } from '../lib/api/client';
import { shouldRetry } from './queryClient';

describe('shouldRetry', () => {
  it('tries a read again three times while the proxy answers 502 during a failover', () => {
    const badGateway = new ApiError(502, null);
    expect([0, 1, 2, 3].map((count) => shouldRetry(count, badGateway))).toEqual([true, true, true, false]);
  });

  it('tries a read again after a network error', () => {
    expect(shouldRetry(0, new TypeError('Failed to fetch'))).toBe(true);
  });

  it('never tries a client error again', () => {
    for (const status of [400, 401, 403, 404, 429]) expect(shouldRetry(0, new ApiError(status, 'no'))).toBe(false);
  });
});
