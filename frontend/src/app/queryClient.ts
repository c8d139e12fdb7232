/** The TanStack Query client: server state lives here, never in React context. */
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api/client';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A client error (401, 403, 404...) will not change on retry; network or 5xx may.
        retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 1,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
