/** The search box and page of a server-paged list: typing settles, then the list restarts at page 1. */
import { useState } from 'react';
import { useDebounced } from './useDebounced';

export function usePagedSearch() {
  const [input, setInput] = useState('');
  const q = useDebounced(input.trim());
  // The page belongs to the search it was chosen for; a new search starts at page 1.
  const [chosen, setChosen] = useState({ q: '', page: 1 });
  const page = chosen.q === q ? chosen.page : 1;
  const setPage = (next: number) => setChosen({ q, page: next });
  return { input, setInput, q, page, setPage };
}
