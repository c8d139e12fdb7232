/** Previous and Next through pages fetched by cursor (the server gives each page's next
 * cursor; the cursors of the pages visited so far are kept to go back). `children` adds
 * controls at the end, such as a page size. */
import type { ReactNode } from 'react';

interface CursorPagerProps<C extends string | number> {
  /** Names the navigation landmark, e.g. 'Audit log pages'. */
  label: string;
  /** Cursors of the pages visited so far: [null (the first page), cursor of page 2, ...]. */
  cursors: (C | null)[];
  setCursors: (update: (cursors: (C | null)[]) => (C | null)[]) => void;
  /** The server's cursor of the next page; null on the last. */
  nextCursor: C | null;
  busy: boolean;
  children?: ReactNode;
}

export function CursorPager<C extends string | number>({ label, cursors, setCursors, nextCursor, busy, children }: CursorPagerProps<C>) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="btn" disabled={cursors.length === 1 || busy} onClick={() => setCursors((c) => c.slice(0, -1))}>
        Previous
      </button>
      <span aria-current="page">Page {cursors.length}</span>
      <button type="button" className="btn" disabled={nextCursor === null || busy} onClick={() => setCursors((c) => [...c, nextCursor])}>
        Next
      </button>
      {children}
    </nav>
  );
}
