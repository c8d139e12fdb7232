/**
 * The in-app viewer (issue 33), loaded on first use: one file of the folder in a dialog with its
 * own URL (the folder page's `?view=`): images fitted to the screen with zoom, PDFs a page at a
 * time as images the server renders at the screen's width (the next page fetched ahead), an image
 * too large to hand to the browser as the reduced copy the server rendered (with a note; the
 * review's 900-megapixel bomb too, streamed by libvips; none at all when the server cannot make
 * one: it says why), texts as text (zoomed by their font size), a DOCX as the sanitised HTML the
 * server made of it in a sandboxed frame that runs no script, anything else a card with its original. An original the browser would not show
 * (an image over the browser's budget: `originalDownload`, a DOCX, an archive) is "Download
 * original", never a blank tab; the others "Open original (new tab)". Previous and next file
 * (buttons, arrow keys, a swipe on a phone), Escape closes, focus stays inside and goes back to
 * the file's row. No PDF is read by a script here: pages arrive as images through signed
 * short-lived links.
 *
 * Issue 50: the header names the patient (ViewerPatient) at every size; `?page=` opens a PDF at
 * that page and `?q=` finds those words (the search's), highlighted on the page (PageSheet) with
 * "Match i of N" and previous and next match across pages (ViewerFind); the page's words lie over
 * it as a selectable text layer; a copy from it, from a text or RTF or from a DOCX's frame is
 * reported to the server (audited `file_copy`: api/viewer.ts reportCopy); on a phone pages fit the
 * width, all at one scale, a pinch zooms (a text's font), and every control is at least 44 x 44
 * CSS pixels.
 *
 * This module holds the dialog's state (the file, page, zoom, find, renewed links) and its frame;
 * what it shows is ViewerContent's (ImageView, PdfView, TextView and HtmlView, ViewerCards), the
 * header's tools ViewerZoom and ViewerFind, touch useGestures, focus and keys useViewerDialog.
 */
import { useCallback, useId, useLayoutEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { StoredFile, TextMatch } from '../../../../lib/api/types';
import { useFindText, useViewer, type ViewerVersion } from '../../api/viewer';
import { VIEWER_MSG, viewerErrorMessage } from '../../messages';
import { useGestures, type PinchPoint } from './useGestures';
import { useViewerDialog } from './useViewerDialog';
import { NotDisplayable, ViewerProblem } from './ViewerCards';
import { ViewerContent } from './ViewerContent';
import { findStatus, ViewerFind } from './ViewerFind';
import { VIEWER_TEXT } from './viewerMessages';
import { ViewerPatient } from './ViewerPatient';
import { firstMatchFrom, nextZoom, opensInBrowser, requestedPage, stepMatch } from './viewerRules';
import type { Original } from './viewerTypes';
import { ViewerZoom } from './ViewerZoom';

export interface FileViewerProps {
  container: string;
  folder: string;
  /** The folder's files in the listing's order: previous and next follow it. */
  files: readonly StoredFile[];
  /** The file shown. */
  name: string;
  /** Show another file of the folder (previous or next). */
  onNavigate: (name: string) => void;
  onClose: () => void;
  /** Opens the original the way the file list always has: a sandboxed tab (this tab on iOS). */
  onOpenOriginal: (name: string) => void;
  /** Saves the original to the device: a file the browser would not show, sent as a download. */
  onDownloadOriginal: (name: string) => void;
  ios: boolean;
}

/** The URL's parameters the viewer reads besides `view` (the folder page's): the page to open
 * at and the words to find (a search hit's), `?view=<name>&page=<n>&q=<terms>`. */
const PAGE_PARAM = 'page';
const FIND_PARAM = 'q';
/** A file's openings for new links within a minute, at most (links last minutes when they work). */
const RENEWALS_PER_MINUTE = 2;

const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);

const NO_MATCHES: readonly TextMatch[] = [];

export default function FileViewer({ container, folder, files, name, onNavigate, onClose, onOpenOriginal, onDownloadOriginal, ios }: FileViewerProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const [params] = useSearchParams();
  const urlPage = params.get(PAGE_PARAM);
  const urlFind = params.get(FIND_PARAM) ?? '';
  const index = files.findIndex((file) => file.name === name);
  const file = index >= 0 ? files[index] : undefined;
  const previous = index > 0 ? files[index - 1] : undefined;
  const next = index >= 0 && index < files.length - 1 ? files[index + 1] : undefined;
  // A file the listing says cannot be displayed (a damaged PDF kept) is not asked for: its card
  // offers the original as a download.
  const displayable = file?.displayable ?? true;
  const viewer = useViewer(container, folder, name, file?.lastModified ?? '', displayable);
  const [answered, setAnswered] = useState(false);
  const kind = viewer.data?.kind;
  // A text (and an RTF's) zooms its font: larger letters, the lines wrapped again.
  const zoomable = kind === 'image' || kind === 'pdf' || kind === 'text';
  const [zoom, setZoom] = useState(1);
  // The page asked for in the URL (a search hit's) until the file's page count is known.
  const [page, setPage] = useState(() => requestedPage(urlPage));
  const pageCount = kind === 'pdf' ? Math.max(1, viewer.data?.pageCount ?? 1) : 1;
  const shownPage = Math.min(page, pageCount);
  const contentType = viewer.data?.contentType ?? file?.contentType;
  // The original of a file the browser would only download (a DOCX, an archive) or of an image
  // over the browser's budget is a download, never a tab (it would stay blank).
  const downloads = Boolean(viewer.data?.originalDownload) || !displayable || kind === 'html' || !opensInBrowser(contentType);
  const original: Original = downloads
    ? { label: VIEWER_TEXT.downloadOriginal, download: true, onClick: () => onDownloadOriginal(name) }
    : { label: ios ? VIEWER_TEXT.openOriginalHere : VIEWER_TEXT.openOriginalTab, download: false, onClick: () => onOpenOriginal(name) };

  // Find in the document: the box's words, the words searched for, and the match shown.
  const [draft, setDraft] = useState(urlFind);
  const [terms, setTerms] = useState(urlFind.trim());
  const [matchIndex, setMatchIndex] = useState<number | null>(null);
  const textLayer = Boolean(viewer.data?.textLayer);
  // The opening's links refused (they expired: a page's picture, the words or the find) or a
  // failed picture's Try again: the file is opened again for new ones, once per opening and never
  // two openings at once, however many fail together (each opening is an audited view); at most
  // RENEWALS_PER_MINUTE, so links refused however new they are never open the file in a loop.
  const renewedFor = useRef<number | null>(null);
  const renewals = useRef<number[]>([]);
  const renew = () => {
    if (!viewer.data || renewedFor.current === viewer.dataUpdatedAt) return;
    const now = Date.now();
    renewals.current = renewals.current.filter((at) => now - at < 60_000);
    if (renewals.current.length >= RENEWALS_PER_MINUTE) return;
    renewals.current.push(now);
    renewedFor.current = viewer.dataUpdatedAt;
    void viewer.refetch({ cancelRefetch: false });
  };
  const version: ViewerVersion = {
    container,
    folder,
    blob: name,
    versionId: viewer.data?.versionId ?? '',
    wordsUrl: viewer.data?.wordsUrl ?? null,
    findUrl: viewer.data?.findUrl ?? null,
    onLinkRefused: renew,
  };
  const found = useFindText(version, terms, textLayer && viewer.isSuccess);
  const matches = found.data?.matches ?? NO_MATCHES;

  // Another file starts unzoomed at its first page (or the page a new URL asks for), and the
  // URL asking for another page or other words (a new search hit) is followed. The URL's page is
  // where the viewer opened (a reload opens there again): turning pages leaves the URL alone.
  const [seen, setSeen] = useState({ name, urlPage, urlFind });
  if (seen.name !== name || seen.urlPage !== urlPage || seen.urlFind !== urlFind) {
    setSeen({ name, urlPage, urlFind });
    if (seen.name !== name) {
      setZoom(1);
      setMatchIndex(null);
    }
    if (seen.urlPage !== urlPage && urlPage !== null && urlPage !== String(page)) setPage(requestedPage(urlPage));
    else if (seen.name !== name) setPage(1);
    if (seen.urlFind !== urlFind) {
      setDraft(urlFind);
      setTerms(urlFind.trim());
      setMatchIndex(null);
    }
  }
  // A find's answer starts at the first match on the page shown or after it; the same words'
  // answer again under new links (they expired) stays at the match shown.
  const [placed, setPlaced] = useState<{ data: unknown; what: string } | null>(null);
  const findWhat = `${viewer.data?.versionId ?? ''}\n${terms}`;
  if (found.data && !found.isPlaceholderData && placed?.data !== found.data) {
    setPlaced({ data: found.data, what: findWhat });
    if (placed?.what !== findWhat) {
      const first = firstMatchFrom(found.data.matches, shownPage);
      const match = found.data.matches[first];
      setMatchIndex(match ? first : null);
      if (match) setPage(match.page);
    }
  }
  const current = matchIndex !== null ? (matches[matchIndex] ?? null) : null;

  const goTo = useCallback((target: StoredFile | undefined) => target && onNavigate(target.name), [onNavigate]);
  const turn = useCallback((to: number) => setPage(Math.min(Math.max(1, to), pageCount)), [pageCount]);
  const onFind = (direction: 1 | -1) => {
    const wanted = draft.trim();
    if (wanted !== terms) {
      setTerms(wanted);
      setMatchIndex(null);
      return;
    }
    if (matches.length === 0) return;
    const to = stepMatch(matchIndex, matches.length, direction);
    setMatchIndex(to);
    setPage(matches[to]!.page);
  };


  // What the keys do (focus moves in, stays in and goes back: useViewerDialog).
  useViewerDialog(ref, name, (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    if (key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    if (typing(event.target)) return;
    // Sideways keys scroll a zoomed page and, with Shift, extend a selection: never another file.
    const stepping = !event.shiftKey && zoom <= 1;
    if (stepping && key === 'ArrowLeft' && previous) goTo(previous);
    else if (stepping && key === 'ArrowRight' && next) goTo(next);
    else if (kind === 'pdf' && key === 'PageDown') turn(shownPage + 1);
    else if (kind === 'pdf' && key === 'PageUp') turn(shownPage - 1);
    else if (zoomable && (key === '+' || key === '=')) setZoom((z) => nextZoom(z, 1));
    else if (zoomable && key === '-') setZoom((z) => nextZoom(z, -1));
    else if (zoomable && key === '0') setZoom(1);
    else return;
    event.preventDefault();
  });

  // A pinch keeps the point between the fingers where it is: the scroll follows the zoom.
  const pinchAt = useRef<PinchPoint & { from: number } | null>(null);
  useLayoutEffect(() => {
    const at = pinchAt.current;
    pinchAt.current = null;
    if (!at || at.from === zoom) return;
    const ratio = zoom / at.from;
    at.scroller.scrollLeft = (at.scroller.scrollLeft + at.x) * ratio - at.x;
    at.scroller.scrollTop = (at.scroller.scrollTop + at.y) * ratio - at.y;
  }, [zoom]);
  const gestures = useGestures({
    zoom,
    zoomable,
    onZoom: (to, at) => {
      if (at && !pinchAt.current) pinchAt.current = { ...at, from: zoom };
      setZoom(to);
    },
    onSwipe: (direction) => goTo(direction === 'next' ? next : previous),
  });

  const position = index >= 0 ? VIEWER_MSG.filePosition(index + 1, files.length) : null;
  const status = findStatus(terms, found, matches, matchIndex);
  const onPage = (p: number) => (matches === NO_MATCHES ? NO_MATCHES : matches.filter((match) => match.page === p));
  const pages = { page: shownPage, count: pageCount, turn };
  const text = { version, textLayer, matchesOn: onPage, current };

  // Until the first opening answers, the dialog holds its header and a loading note, not the
  // page's area: the header's rows (the find bar, the zoom) depend on the answer, and a header
  // growing over a page area already painted moved it (CLS 0.16 on a phone's first load at ?view=).
  if (viewer.data && !answered) setAnswered(true);
  const firstLoad = displayable && !answered && viewer.isPending;

  return (
    <div className="viewer-backdrop">
      <div ref={ref} className="viewer" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <div className="viewer-bar">
          <div className="viewer-heading">
            <h2 id={titleId} className="viewer-title">
              {name}
            </h2>
            {position ? <span className="viewer-position muted small">{position}</span> : null}
          </div>
          <ViewerPatient container={container} folder={folder} />
          <div className="viewer-tools">
            {zoomable ? <ViewerZoom zoom={zoom} kind={kind} setZoom={setZoom} /> : null}
            <button type="button" className="btn btn-small viewer-control" onClick={original.onClick} title={ios && !original.download ? 'Tap to Open' : undefined}>
              {original.label}
            </button>
            <button type="button" className="btn btn-small viewer-control" onClick={onClose} aria-label="Close viewer">
              Close
            </button>
          </div>
          {textLayer && viewer.isSuccess ? (
            <ViewerFind draft={draft} onDraft={setDraft} onFind={onFind} status={status} canStep={matches.length > 0 && draft.trim() === terms} />
          ) : null}
        </div>
        {/* Gestures on the page and on the previous and next buttons a phone floats over its
            edges: a swipe that starts on one still swipes (a tap still taps). */}
        {firstLoad ? (
          <p className="viewer-note" role="status">
            {VIEWER_MSG.loading}
          </p>
        ) : (
          <div className="viewer-main" {...gestures}>
            <button type="button" className="viewer-step viewer-previous" onClick={() => goTo(previous)} disabled={!previous} title={previous?.name}>
              <span aria-hidden="true">‹</span>
              <span className="visually-hidden">{previous ? VIEWER_MSG.previousFile(previous.name) : 'Previous file'}</span>
            </button>
            <div className={`viewer-stage${zoom > 1 ? ' zoomed' : ''}`}>
              {!displayable ? (
                <NotDisplayable file={file} original={original} />
              ) : viewer.isPending ? (
                <p className="viewer-note" role="status">
                  {VIEWER_MSG.loading}
                </p>
              ) : viewer.isError ? (
                <ViewerProblem message={viewerErrorMessage(viewer.error, ios)} onRetry={() => void viewer.refetch()} />
              ) : (
                <ViewerContent key={name} answer={viewer.data} file={file} name={name} zoom={zoom} pages={pages} onExpired={renew} original={original} text={text} />
              )}
            </div>
            <button type="button" className="viewer-step viewer-next" onClick={() => goTo(next)} disabled={!next} title={next?.name}>
              <span aria-hidden="true">›</span>
              <span className="visually-hidden">{next ? VIEWER_MSG.nextFile(next.name) : 'Next file'}</span>
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
