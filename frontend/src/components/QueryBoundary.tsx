/**
 * The loading, error and empty states of a screen's query, in one place: a spinner with the
 * screen's text, the server's message or the screen's fallback (spec section 8) with Try again,
 * the screen's empty text, and otherwise the screen's content for the loaded data.
 */
import type { ReactNode } from 'react';
import { errorMessage } from '../lib/api/client';
import { EmptyState, ErrorState, Loading } from './States';

/** What the boundary reads of a query: TanStack Query's result, or two results combined. */
export interface QueryState<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

interface QueryBoundaryProps<T> {
  query: QueryState<T>;
  /** The loading text, e.g. 'Loading users…'. */
  loading: string;
  /** The failure text when the server sent no message, e.g. 'Failed to load users'. */
  failed: string;
  /** false: always the failure text, even when the server sent a message. */
  serverMessage?: boolean;
  /** false: no Try again button. */
  retry?: boolean;
  /** When the loaded data counts as empty, and what the screen says then. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

export function QueryBoundary<T>({
  query,
  loading,
  failed,
  serverMessage = true,
  retry = true,
  isEmpty,
  empty,
  children,
}: QueryBoundaryProps<T>) {
  // Still loading wins over a failure (of one of two combined queries).
  if (!query.isPending && query.isError) {
    const message = serverMessage ? errorMessage(query.error, failed) : failed;
    return <ErrorState message={message} onRetry={retry ? () => void query.refetch() : undefined} />;
  }
  if (query.isPending || query.data === undefined) return <Loading label={loading} />;
  if (isEmpty?.(query.data)) return <EmptyState>{empty}</EmptyState>;
  return <>{children(query.data)}</>;
}
