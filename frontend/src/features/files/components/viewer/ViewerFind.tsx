/**
 * Find in the document (issue 50): a search box over the file's words (the server's find, matched
 * as search matches), "Match i of N" announced politely, and previous and next match (buttons,
 * Enter and Shift+Enter in the box) moving across pages.
 */
import { useId, type FormEvent, type KeyboardEvent } from 'react';
import { ApiError } from '../../../../lib/api/client';
import type { TextMatch } from '../../../../lib/api/types';
import type { useFindText } from '../../api/viewer';
import { VIEWER_TEXT } from './viewerMessages';

/** What the find found, in words: nothing before a search, Searching…, the server's refusal
 * (or that it failed), no matches (so far, when the document was too long to search to its
 * end), or "Match i of N". */
export function findStatus(terms: string, found: ReturnType<typeof useFindText>, matches: readonly TextMatch[], matchIndex: number | null): string {
  return !terms
    ? ''
    : found.isPending
      ? VIEWER_TEXT.searching
      : found.isError
        ? ((found.error instanceof ApiError && found.error.status !== 0 && (found.error.status < 500 || found.error.status === 503) && found.error.serverMessage) ||
          VIEWER_TEXT.findFailed)
        : matches.length === 0
          ? found.data?.partial
            ? VIEWER_TEXT.noMatchesSoFar
            : VIEWER_TEXT.noMatches
          : VIEWER_TEXT.matchPosition((matchIndex ?? 0) + 1, found.data?.total ?? matches.length, Boolean(found.data?.capped || found.data?.partial)) +
            (found.data?.partial ? ` · ${VIEWER_TEXT.partial}` : '');
}

interface ViewerFindProps {
  draft: string;
  onDraft: (value: string) => void;
  /** Enter: search for the box's words, or move to the next (+1) or previous (-1) match. */
  onFind: (direction: 1 | -1) => void;
  /** What the find found ("Match 2 of 7", "No matches"), or nothing before a search. */
  status: string;
  /** There are matches to move between. */
  canStep: boolean;
}

export function ViewerFind({ draft, onDraft, onFind, status, canStep }: ViewerFindProps) {
  const inputId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onFind(1);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && event.shiftKey) {
      event.preventDefault();
      onFind(-1);
    }
  };
  return (
    <form className="viewer-find" role="search" onSubmit={submit}>
      <label htmlFor={inputId} className="visually-hidden">
        {VIEWER_TEXT.findLabel}
      </label>
      <input
        id={inputId}
        type="search"
        className="viewer-find-input viewer-control"
        placeholder={VIEWER_TEXT.findLabel}
        value={draft}
        onChange={(event) => onDraft(event.target.value)}
        onKeyDown={onKeyDown}
        enterKeyHint="search"
        autoComplete="off"
      />
      <button type="button" className="btn btn-small viewer-control" onClick={() => onFind(-1)} disabled={!canStep}>
        <span aria-hidden="true">↑</span>
        <span className="visually-hidden">{VIEWER_TEXT.previousMatch}</span>
      </button>
      <button type="button" className="btn btn-small viewer-control" onClick={() => onFind(1)} disabled={!canStep}>
        <span aria-hidden="true">↓</span>
        <span className="visually-hidden">{VIEWER_TEXT.nextMatch}</span>
      </button>
      <span className="viewer-find-status small" role="status" aria-live="polite" aria-atomic="true">
        {status}
      </span>
    </form>
  );
}
