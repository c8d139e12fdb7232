/** The viewer's pure rules: zoom steps, page links and widths, what counts as a swipe. */

/** Zoom levels, 1 = fitted to the screen. */
export const ZOOM_STEPS = [1, 1.5, 2, 3, 4] as const;

/** The next zoom level up (+1) or down (-1) from `zoom`, within the steps. */
export function nextZoom(zoom: number, direction: 1 | -1): number {
  if (direction > 0) return ZOOM_STEPS.find((step) => step > zoom) ?? ZOOM_STEPS[ZOOM_STEPS.length - 1]!;
  return [...ZOOM_STEPS].reverse().find((step) => step < zoom) ?? ZOOM_STEPS[0];
}

/**
 * The page width for a viewing area `cssWidth` wide at this device pixel ratio: the smallest of
 * the widths the server renders pages at (its `pageWidths`: a few, so that its cache of rendered
 * pages serves every screen of about the same size) that is at least as wide, or the widest.
 */
export function pageWidthFor(cssWidth: number, pixelRatio: number, widths: readonly number[]): number {
  const wanted = Math.ceil(Math.max(1, cssWidth) * Math.min(Math.max(pixelRatio, 1), 3));
  const sorted = [...widths].sort((a, b) => a - b);
  if (sorted.length === 0) return Math.min(Math.max(wanted, 200), 2000);
  return sorted.find((width) => width >= wanted) ?? sorted[sorted.length - 1]!;
}

/** A page's link from the server's template, whose {page} and {width} may arrive percent-encoded. */
export function pageLink(template: string, page: number, width: number): string {
  return template.replace(/\{page\}|%7Bpage%7D/gi, String(page)).replace(/\{width\}|%7Bwidth%7D/gi, String(width));
}

/** A swipe moves at least this far sideways (CSS pixels), and more sideways than up or down. */
export const SWIPE_PX = 60;

/** Which file a finger's movement asks for: a swipe to the left shows the next one. */
export function swipeDirection(dx: number, dy: number): 'next' | 'previous' | null {
  if (Math.abs(dx) < SWIPE_PX || Math.abs(dy) * 2 > Math.abs(dx)) return null;
  return dx < 0 ? 'next' : 'previous';
}
