/** The viewer as a modal dialog: focus moves in, stays in (Tab wraps), and goes back to the row
 * of the file shown last; every other key goes to the latest `onKey` (one listener, set up once). */
import { useEffect, useRef, type RefObject } from 'react';
import { wrapTab } from '../../../../lib/focusTrap';

/** The row button that opens `name` in the file list, to give focus back to. */
function rowOf(name: string): HTMLElement | null {
  return Array.from(document.querySelectorAll<HTMLElement>('[data-file-open]')).find((el) => el.dataset.fileOpen === name) ?? null;
}

export function useViewerDialog(ref: RefObject<HTMLDivElement | null>, name: string, onKey: (event: KeyboardEvent) => void): void {
  // What the keys do, read by the one listener below (it is set up once).
  const keys = useRef(onKey);
  useEffect(() => {
    keys.current = onKey;
  });

  const lastName = useRef(name);
  useEffect(() => {
    lastName.current = name;
  }, [name]);
  useEffect(() => {
    const node = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    node?.focus();
    document.body.classList.add('viewer-open');
    const onKeyDown = (event: KeyboardEvent) => {
      if (!node) return;
      if (event.key !== 'Tab') {
        keys.current(event);
        return;
      }
      wrapTab(node, event);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.body.classList.remove('viewer-open');
      const row = rowOf(lastName.current) ?? (opener && opener !== document.body && opener.isConnected ? opener : null);
      row?.focus();
    };
  }, [ref]); // a ref object: set up once
}
