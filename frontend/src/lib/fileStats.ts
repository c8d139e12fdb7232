/** File type statistics of My Assignments (spec section 2): sorted, with percentages. */

export interface FileTypeStat {
  extension: string;
  count: number;
  /** Share of all files, 0-100, rounded to one decimal. */
  percent: number;
}

/** A share of a total in percent with one decimal; 0 when there is nothing to share. */
export function percentOf(count: number, total: number): number {
  if (total <= 0 || count <= 0) return 0;
  return Math.round((count / total) * 1000) / 10;
}

/**
 * The extensions by count, most first (ties by name, so the order is stable whatever the
 * JSON key order was), each with its percentage of `total` (the sum of counts when omitted).
 */
export function fileTypeStats(fileTypes: Record<string, number>, total?: number): FileTypeStat[] {
  const entries = Object.entries(fileTypes).filter(([, count]) => count > 0);
  const sum = total ?? entries.reduce((acc, [, count]) => acc + count, 0);
  return entries
    .sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
    .map(([extension, count]) => ({ extension, count, percent: percentOf(count, sum) }));
}

/** '33.3%', '100%', '0%'. */
export function formatPercent(percent: number): string {
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)}%`;
}
