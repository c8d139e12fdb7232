import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api/client';
import { searchRetry } from './search';

describe('searchRetry', () => {
  it('never asks the server again for a search it answered (too slow, too many, refused)', () => {
    for (const status of [503, 429, 400, 500]) {
      expect(searchRetry(0, new ApiError(status, 'The search took too long; add words or a filter'))).toBe(false);
    }
  });

  it('tries a search that never reached the server once more', () => {
    expect(searchRetry(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(searchRetry(1, new TypeError('Failed to fetch'))).toBe(false);
  });
});
