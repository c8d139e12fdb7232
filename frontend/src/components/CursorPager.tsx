/** Previous and Next through pages fetched by cursor (the server gives each page's next
 * cursor; the cursors of the pages visited so far are kept to go back). `children` adds
 * controls at the end, such as a page size. */
import type { ReactNode } from 'react';

interface CursorPagerProps {
  /** Names the navigation landmark, e.g. 'Audit log pages'. */
  label: string;
  /** Cursors of the pages visited so far: [null (the first page), cursor of page 2, ...]. */
  cursors: (number | null)[];
  setCursors: (update: (cursors: (number | null)[]) => (number | null)[]) => void;
  /** The server's cursor of the next page; null on the last. */
  nextCursor: number | null;
  busy: boolean;
  children?: ReactNode;
}

export function CursorPager({ label, cursors, setCursors, nextCursor, busy, children }: CursorPagerProps) {
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
