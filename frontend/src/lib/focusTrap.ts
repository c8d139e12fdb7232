/** Focus kept inside a modal (the dialogs, the file viewer): Tab wraps around its elements. */

/** The elements Tab reaches. */
export const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** For a Tab keydown: from node's last element (or from node itself or outside it) to its first, and
 * Shift+Tab the other way; with nothing to reach, focus stays where it is. */
export function wrapTab(node: HTMLElement, event: KeyboardEvent): void {
  const items = Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE));
  if (items.length === 0) {
    event.preventDefault();
    return;
  }
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === node || !node.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !node.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}
