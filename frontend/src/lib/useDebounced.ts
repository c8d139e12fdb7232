/** A value that follows another after it has been still for `delayMs` (search boxes). */
import { useEffect, useState } from 'react';

export const SEARCH_DEBOUNCE_MS = 250;

export function useDebounced<T>(value: T, delayMs = SEARCH_DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
