/** The viewer's pure rules: zoom steps and pinches, page links and widths, what counts as a swipe,
 * the page asked for in the URL, word boxes on a page, and moving between matches (issue 50). */
import type { PageWord, TextMatch } from '../../../../lib/api/types';

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

/** A pinch zooms between fitted (1) and the largest step. */
export function clampZoom(zoom: number): number {
  if (!Number.isFinite(zoom)) return 1;
  return Math.min(Math.max(zoom, 1), ZOOM_STEPS[ZOOM_STEPS.length - 1]!);
}

/** The zoom of a pinch: the zoom it started at times how far the fingers moved apart. */
export function pinchZoom(startZoom: number, startDistance: number, distance: number): number {
  if (startDistance <= 0) return clampZoom(startZoom);
  return clampZoom(startZoom * (distance / startDistance));
}

/** The page asked for in the URL (`?page=`): a whole number from 1, else 1. */
export function requestedPage(value: string | null | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The content types a browser shows itself (bff/files/delivery.py INLINE_TYPES, audio, video):
 * their original opens in a tab; any other is downloaded (a tab would stay blank). */
const INLINE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'text/plain', 'text/csv']);

export function opensInBrowser(contentType: string | null | undefined): boolean {
  const base = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return INLINE_TYPES.has(base) || base.startsWith('audio/') || base.startsWith('video/');
}

/** A word's box as four numbers [x0, y0, x1, y1] (a missing one 0). */
export function boxOf(word: PageWord): [number, number, number, number] {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = word.box;
  return [x0, y0, x1, y1];
}

/** A word box [x0, y0, x1, y1] (fractions of the page) as CSS, in percentages of the page:
 * positioned over the picture at any size. */
export function boxStyle(box: readonly number[]): { left: string; top: string; width: string; height: string } {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = box;
  const pct = (v: number) => `${Math.round(Math.min(Math.max(v, 0), 1) * 100_000) / 1000}%`;
  return { left: pct(x0), top: pct(y0), width: pct(Math.max(0, x1 - x0)), height: pct(Math.max(0, y1 - y0)) };
}

/** What goes between a word and the one before it in the text layer: a line break when it starts
 * a new line (its middle below the other's box, or back at the left), else a space. */
export function separatorBefore(previous: PageWord | undefined, word: PageWord): '' | ' ' | '\n' {
  if (!previous) return '';
  const [x0, y0, , y1] = boxOf(word);
  const [px0, py0, , py1] = boxOf(previous);
  const middle = (y0 + y1) / 2;
  return middle > py1 || middle < py0 || x0 < px0 ? '\n' : ' ';
}

/** The first match on `page` or after it (else the first of all): where a find starts. */
export function firstMatchFrom(matches: readonly TextMatch[], page: number): number {
  const index = matches.findIndex((match) => match.page >= page);
  return index >= 0 ? index : 0;
}

/** The next (+1) or previous (-1) match, round from the last to the first and back. */
export function stepMatch(index: number | null, total: number, direction: 1 | -1): number {
  if (total <= 0) return 0;
  if (index === null) return direction > 0 ? 0 : total - 1;
  return (index + direction + total) % total;
}
