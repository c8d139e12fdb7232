/**
 * Events sent before the first live connection is up are lost (the server keeps none), and the
 * first connection refetches nothing: the screen has just fetched it. A query whose data says an
 * event is still to come (a thumbnail or a file's text being made: `meta.awaitsLive`) would wait
 * for it forever if it came in that gap, so those queries are fetched again once the first
 * connection is up: the ones with such data at that moment, and the ones still being fetched
 * then (their answer may have been read before the connection) once their data arrives.
 */
import type { Query, QueryClient } from '@tanstack/react-query';

/** Whether a query's data says a live event about it is still to come. */
export type AwaitsLive = (data: unknown) => boolean;

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: { awaitsLive?: AwaitsLive };
  }
}

const awaits = (query: Query): boolean =>
  query.state.data !== undefined && query.meta?.awaitsLive?.(query.state.data) === true;

/** At the first connection: refetch what awaits an event now, and what is being fetched once
 * it arrives, if it awaits one. Returns the unsubscribe (a no-op once every fetch has ended). */
export function refetchAwaiting(client: QueryClient): () => void {
  const cache = client.getQueryCache();
  const watched = cache.findAll({ predicate: (q) => q.meta?.awaitsLive !== undefined });
  const fetching = new Set(watched.filter((q) => q.state.fetchStatus === 'fetching'));
  for (const query of watched) {
    if (!fetching.has(query) && awaits(query)) void client.invalidateQueries({ queryKey: query.queryKey, exact: true });
  }
  if (fetching.size === 0) return () => undefined;
  const unsubscribe = cache.subscribe((event) => {
    if (event.type !== 'updated' || !fetching.has(event.query)) return;
    const { type } = event.action;
    if (type !== 'success' && type !== 'error') return;
    fetching.delete(event.query);
    if (type === 'success' && awaits(event.query)) void client.invalidateQueries({ queryKey: event.query.queryKey, exact: true });
    if (fetching.size === 0) unsubscribe();
  });
  return unsubscribe;
}
