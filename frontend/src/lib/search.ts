/** Searches are case-insensitive substring matches (spec section 5). */
export function matchesSearch(text: string, query: string): boolean {
  const q = query.trim().toLowerCase();
  return q === '' || text.toLowerCase().includes(q);
}

/** The items whose text (or any of its texts) matches the query. */
export function filterBySearch<T>(
  items: readonly T[],
  query: string,
  textOf: (item: T) => string | readonly string[],
): T[] {
  if (query.trim() === '') return [...items];
  return items.filter((item) => {
    const texts = textOf(item);
    return (typeof texts === 'string' ? [texts] : texts).some((t) => matchesSearch(t, query));
  });
}
