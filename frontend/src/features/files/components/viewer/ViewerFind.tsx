/**
 * Find in the document (issue 50): a search box over the file's words (the server's find, matched
 * as search matches), "Match i of N" announced politely, and previous and next match (buttons,
 * Enter and Shift+Enter in the box) moving across pages.
 */
import { useId, type FormEvent, type KeyboardEvent } from 'react';
import { VIEWER_TEXT } from './viewerMessages';

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
