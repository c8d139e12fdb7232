/**
 * The loading, error and empty states of a screen's query, in one place: a spinner with the
 * screen's text, the server's message or the screen's fallback (spec section 8) with Try again,
 * the screen's empty text, and otherwise the screen's content for the loaded data.
 */
import type { ReactNode } from 'react';
import { errorMessage, isNotFound } from '../lib/api/client';
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
  /**
   * The screen's texts: while loading ('Loading users…'), when loading failed and the server sent
   * no message ('Failed to load users'), and when the data is empty.
   */
  messages: { loading: string; loadFailed: string; empty?: ReactNode };
  /** false: always the failure text, even when the server sent a message. */
  serverMessage?: boolean;
  /** false: no Try again button. */
  retry?: boolean;
  /** Shown instead of the error when what the query names is not there for the caller (404):
   * what to say and the way back, no Try again. */
  notFound?: ReactNode;
  /** When the loaded data counts as empty (then messages.empty is shown). */
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}

export function QueryBoundary<T>({
  query,
  messages,
  serverMessage = true,
  retry = true,
  notFound,
  isEmpty,
  children,
}: QueryBoundaryProps<T>) {
  // Still loading wins over a failure (of one of two combined queries).
  if (!query.isPending && query.isError && notFound !== undefined && isNotFound(query.error)) return <>{notFound}</>;
  if (!query.isPending && query.isError) {
    const message = serverMessage ? errorMessage(query.error, messages.loadFailed) : messages.loadFailed;
    return <ErrorState message={message} onRetry={retry ? () => void query.refetch() : undefined} />;
  }
  if (query.isPending || query.data === undefined) return <Loading label={messages.loading} />;
  if (isEmpty?.(query.data)) return <EmptyState>{messages.empty}</EmptyState>;
  return <>{children(query.data)}</>;
}
