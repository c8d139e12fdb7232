/** Page buttons of the container and folder pagers (spec sections 2 and 9), computed purely. */

/** A page number to show as a button, or a gap shown as an ellipsis. */
export type PagerItem = number | 'ellipsis';

/** Containers per page (spec section 9). */
export const CONTAINER_PAGE_SIZE = 12;

/** Folders per page (spec section 9): the admin storage pages, the container page, My Assignments and the dashboard's search. */
export const FOLDER_PAGE_SIZE = 20;

/** Up to this many pages, every page gets a button; beyond it the pager is windowed. */
export const PAGER_PLAIN_MAX = 7;

/** How many pages `total` items fill at `pageSize` per page (at least 1, so an empty list has page 1). */
export function pageCount(total: number, pageSize: number): number {
  if (pageSize <= 0) return 1;
  return Math.max(1, Math.ceil(total / pageSize));
}

/** Clamp a requested page into 1..pages (a bad or stale page number lands on a real page). */
export function clampPage(page: number, pages: number): number {
  if (!Number.isFinite(page)) return 1;
  return Math.min(Math.max(1, Math.trunc(page)), Math.max(1, pages));
}

/**
 * The buttons to show. Up to 7 pages: all of them. More: pages 1 to 3, an ellipsis and the last
 * page while on the first pages; further in, the first page, the current page with its
 * neighbours and the last page, with ellipses for the gaps. A gap of a single page shows that
 * page instead of an ellipsis (an ellipsis hiding one number saves nothing).
 */
export function pagerItems(current: number, pages: number, plainMax = PAGER_PLAIN_MAX): PagerItem[] {
  const total = Math.max(1, Math.trunc(pages));
  const page = clampPage(current, total);
  if (total <= plainMax) return Array.from({ length: total }, (_, i) => i + 1);
  let start = Math.max(1, page - 1);
  let end = Math.min(total, page + 1);
  if (start <= 2) {
    start = 1;
    end = Math.max(end, 3);
  }
  if (end >= total - 1) {
    end = total;
    start = Math.min(start, total - 2);
  }
  const shown = new Set<number>([1, total]);
  for (let p = start; p <= end; p++) shown.add(p);
  const sorted = [...shown].sort((a, b) => a - b);
  const items: PagerItem[] = [];
  let previous = 0;
  for (const p of sorted) {
    if (p - previous === 2) items.push(p - 1);
    else if (p - previous > 2) items.push('ellipsis');
    items.push(p);
    previous = p;
  }
  return items;
}
