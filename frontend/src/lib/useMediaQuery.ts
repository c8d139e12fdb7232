/** Whether a CSS media query matches now, as React state that follows the window. */
import { useCallback, useSyncExternalStore } from 'react';

/** The width at or below which a screen is laid out for a phone (styles.css uses it too). */
export const PHONE_QUERY = '(max-width: 640px)';

const list = (query: string): MediaQueryList | null =>
  typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query) : null;

/** Whether the query matches at this moment (false where there is no window). */
export const mediaMatches = (query: string): boolean => list(query)?.matches ?? false;

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const media = list(query);
      media?.addEventListener('change', onChange);
      return () => media?.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => mediaMatches(query), () => false);
}
