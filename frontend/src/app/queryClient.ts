/** The TanStack Query client: server state lives here, never in React context. */
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api/client';

/**
 * Whether a failed read is tried again (after 1, 2 and 4 s, TanStack's default delays). A client
 * error (401, 403, 404...) will not change on retry. A network error or a 5xx may: while an
 * instance restarts behind nginx, the proxy answers 502 for up to its fail_timeout (5 s), and a
 * folder page should ride that out rather than show "Failed to load data".
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  const clientError = error instanceof ApiError && error.status >= 400 && error.status < 500;
  return !clientError && failureCount < 3;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
