/** Two queries that a screen shows together, read as one: loading, failing and refreshing together. */
import type { UseQueryResult } from '@tanstack/react-query';

export function combineQueries<A, B>(a: UseQueryResult<A>, b: UseQueryResult<B>) {
  return {
    isPending: a.isPending || b.isPending,
    isError: a.isError || b.isError,
    error: a.error ?? b.error,
    data: a.data !== undefined && b.data !== undefined ? ([a.data, b.data] as const) : undefined,
    isFetching: a.isFetching || b.isFetching,
    dataUpdatedAt: Math.max(a.dataUpdatedAt, b.dataUpdatedAt),
    refetch: () => {
      void a.refetch();
      void b.refetch();
    },
  };
}
