/**
 * The top bar's search box, for every role: the `/` key focuses it (unless the reader is typing
 * in a field), and a search goes to the results screen. On the results screen it shows that
 * search's words and keeps its filters; elsewhere it searches everything the reader may read.
 */
import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { parseSearch, SEARCH_PATH, searchUrl } from '../../../lib/searchQuery';
import { SEARCH_MSG } from '../messages';

/** Whether a key press is someone typing (a field, a select, an editable region), not a shortcut. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function SearchBox() {
  const location = useLocation();
  const onResults = location.pathname === SEARCH_PATH;
  // A new results address shows its words afresh: the box is remade for each.
  return <Box key={onResults ? location.search : ''} onResults={onResults} search={location.search} />;
}

function Box({ onResults, search }: { onResults: boolean; search: string }) {
  const navigate = useNavigate();
  const current = onResults ? parseSearch(new URLSearchParams(search)) : null;
  const [value, setValue] = useState(current?.q ?? '');
  const input = useRef<HTMLInputElement>(null);

  // Listening from before the box is first painted: a `/` pressed as soon as the page shows
  // finds it (a screen that renders with the layout in one commit paints at once).
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (typingIn(event.target) || document.querySelector('[role="dialog"]')) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const q = value.trim();
    if (!q) {
      input.current?.focus();
      return;
    }
    navigate(searchUrl({ ...(current ?? {}), q }));
  };

  return (
    <form role="search" aria-label={SEARCH_MSG.boxLabel} className="topbar-search" onSubmit={submit}>
      <label htmlFor="topbar-search" className="visually-hidden">
        {SEARCH_MSG.boxLabel}
      </label>
      <input
        ref={input}
        id="topbar-search"
        type="search"
        value={value}
        onChange={(event) => setValue(event.target.value)}
        placeholder={SEARCH_MSG.boxPlaceholder}
        aria-keyshortcuts="/"
        autoComplete="off"
        enterKeyHint="search"
      />
      <button type="submit" className="btn btn-ghost">
        Search
      </button>
    </form>
  );
}
