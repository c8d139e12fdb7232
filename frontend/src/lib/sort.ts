/** Natural order of container and folder names: text prefix, then numeric suffix (spec 3, 5). */
const SUFFIX = /^(.*?)(\d+)$/;

function sortKey(name: string): [string, number] {
  const match = SUFFIX.exec(name);
  if (!match) return [name.toLowerCase(), -1];
  return [(match[1] ?? '').toLowerCase(), Number(match[2])];
}

/** Compare two names: 'patient-2' before 'patient-10'; case-insensitive prefix. */
export function naturalCompare(a: string, b: string): number {
  const [pa, na] = sortKey(a);
  const [pb, nb] = sortKey(b);
  if (pa !== pb) return pa < pb ? -1 : 1;
  if (na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A sorted copy of names (or of items by a name). */
export function naturalSort(names: readonly string[]): string[];
export function naturalSort<T>(items: readonly T[], nameOf: (item: T) => string): T[];
export function naturalSort<T>(items: readonly T[], nameOf?: (item: T) => string): T[] {
  const name = nameOf ?? ((item: T) => String(item));
  return [...items].sort((a, b) => naturalCompare(name(a), name(b)));
}
