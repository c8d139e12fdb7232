/** Counts consecutive empty loads of a query and reloads once before believing 'empty'. */
import { useEffect, useRef, useState } from 'react';
import { isEmptyConfirmed, nextEmptyCount } from './emptyLoads';

interface LoadState {
  /** When the last successful load arrived (TanStack Query's dataUpdatedAt); 0 before any. */
  dataUpdatedAt: number;
  isEmpty: boolean;
  refetch: () => unknown;
}

export function useConfirmedEmpty({ dataUpdatedAt, isEmpty, refetch }: LoadState) {
  const [count, setCount] = useState(0);
  const countRef = useRef(0);
  const seen = useRef(0);
  useEffect(() => {
    if (dataUpdatedAt === 0 || dataUpdatedAt === seen.current) return;
    seen.current = dataUpdatedAt;
    const next = nextEmptyCount(countRef.current, isEmpty);
    countRef.current = next;
    setCount(next);
    if (isEmpty && !isEmptyConfirmed(next)) void refetch();
  }, [dataUpdatedAt, isEmpty, refetch]);
  const confirmed = isEmpty && isEmptyConfirmed(count);
  return { confirmedEmpty: confirmed, checking: isEmpty && !confirmed };
}
