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
 */
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type FormEvent,
  type PointerEvent as ReactPointerEvent,
  type SyntheticEvent,
} from 'react';
import { useSearchParams } from 'react-router-dom';
import { Banner } from '../../../../components/Banner';
import { ApiError, messageOf, serverUrl } from '../../../../lib/api/client';
import { wrapTab } from '../../../../lib/focusTrap';
import type { StoredFile, TextMatch, ViewerResponse } from '../../../../lib/api/types';
import { fileTypeBadge } from '../../../../lib/files';
import { formatFileSize } from '../../../../lib/format';
import { reportCopy, useFindText, useViewer, useViewerText, type ViewerVersion } from '../../api/viewer';
import { VIEWER_MSG, viewerErrorMessage } from '../../messages';
import { PageSheet } from './PageSheet';
import { ViewerFind } from './ViewerFind';
import { VIEWER_TEXT } from './viewerMessages';
import { ViewerPatient } from './ViewerPatient';
import {
  clampZoom,
  firstMatchFrom,
  nextZoom,
  opensInBrowser,
  pageLink,
  pageWidthFor,
  pinchZoom,
  requestedPage,
  stepMatch,
  swipeDirection,
  ZOOM_STEPS,
} from './viewerRules';

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

/** The row button that opens `name` in the file list, to give focus back to. */
function rowOf(name: string): HTMLElement | null {
  return Array.from(document.querySelectorAll<HTMLElement>('[data-file-open]')).find((el) => el.dataset.fileOpen === name) ?? null;
}

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

  // What the keys do, read by the one listener below (it is set up once).
  const keys = useRef<(event: KeyboardEvent) => void>(() => undefined);
  useEffect(() => {
    keys.current = (event) => {
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
    };
  });

  // Focus moves in, stays in (Tab wraps), and goes back to the row of the file shown last.
  const lastName = useRef(name);
  useEffect(() => {
    lastName.current = name;
  }, [name]);
  useEffect(() => {
    const node = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    node?.focus();
    document.body.classList.add('viewer-open');
    const onKey = (event: KeyboardEvent) => {
      if (!node) return;
      if (event.key !== 'Tab') {
        keys.current(event);
        return;
      }
      wrapTab(node, event);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('viewer-open');
      const row = rowOf(lastName.current) ?? (opener && opener !== document.body && opener.isConnected ? opener : null);
      row?.focus();
    };
  }, []);

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
  const findStatus = !terms
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
  const onPage = (p: number) => (matches === NO_MATCHES ? NO_MATCHES : matches.filter((match) => match.page === p));

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
            {zoomable ? (
              <span className="viewer-zoom" role="group" aria-label="Zoom">
                <button type="button" className="btn btn-small viewer-control" onClick={() => setZoom((z) => nextZoom(z, -1))} disabled={zoom <= ZOOM_STEPS[0]!}>
                  <span aria-hidden="true">−</span>
                  <span className="visually-hidden">Zoom out</span>
                </button>
                <span className="viewer-zoom-level small" aria-live="polite">
                  {Math.round(zoom * 100)}%
                </span>
                <button type="button" className="btn btn-small viewer-control" onClick={() => setZoom((z) => nextZoom(z, 1))} disabled={zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!}>
                  <span aria-hidden="true">+</span>
                  <span className="visually-hidden">Zoom in</span>
                </button>
                {/* Always there: on a phone it is how a page pinched too large or too small comes back. */}
                <button
                  type="button"
                  className="btn btn-small viewer-control"
                  onClick={() => setZoom(1)}
                  aria-label={kind === 'pdf' ? VIEWER_TEXT.fitWidth : kind === 'text' ? VIEWER_TEXT.fitText : VIEWER_TEXT.fitScreen}
                >
                  Fit
                </button>
              </span>
            ) : null}
            <button type="button" className="btn btn-small viewer-control" onClick={original.onClick} title={ios && !original.download ? 'Tap to Open' : undefined}>
              {original.label}
            </button>
            <button type="button" className="btn btn-small viewer-control" onClick={onClose} aria-label="Close viewer">
              Close
            </button>
          </div>
          {textLayer && viewer.isSuccess ? (
            <ViewerFind draft={draft} onDraft={setDraft} onFind={onFind} status={findStatus} canStep={matches.length > 0 && draft.trim() === terms} />
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
                <Content
                  key={name}
                  answer={viewer.data}
                  file={file}
                  name={name}
                  zoom={zoom}
                  page={shownPage}
                  pageCount={pageCount}
                  onTurn={turn}
                  onExpired={renew}
                  original={original}
                  version={version}
                  textLayer={textLayer}
                  matchesOn={onPage}
                  current={current}
                />
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

/** Where a pinch is: the page's scrolling box, and the point between the fingers in it. */
interface PinchPoint {
  scroller: HTMLElement;
  x: number;
  y: number;
}

/**
 * Touch on the page (and on the previous and next buttons a phone floats over its edges: a
 * swipe started on one is still a swipe): a swipe to the side goes to the previous or next file
 * (not while zoomed: then the finger moves the picture), two fingers pinch the zoom (the
 * browser's own pinch is turned off there by touch-action, so the header and the patient stay
 * on screen). A mouse drag is neither (it selects text).
 */
function useGestures({
  zoom,
  zoomable,
  onZoom,
  onSwipe,
}: {
  zoom: number;
  zoomable: boolean;
  onZoom: (zoom: number, at: PinchPoint | null) => void;
  onSwipe: (direction: 'next' | 'previous') => void;
}) {
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const swipeStart = useRef<{ x: number; y: number; id: number } | null>(null);
  const pinch = useRef<{ distance: number; zoom: number } | null>(null);
  const spread = () => {
    const [a, b] = Array.from(pointers.current.values());
    return a && b ? Math.hypot(a.x - b.x, a.y - b.y) : 0;
  };
  const end = (event: ReactPointerEvent) => {
    pointers.current.delete(event.pointerId);
    if (pinch.current) {
      if (pointers.current.size < 2) pinch.current = null;
      swipeStart.current = null;
      return false;
    }
    return true;
  };
  return {
    onPointerDown: (event: ReactPointerEvent) => {
      if (event.pointerType === 'mouse') {
        swipeStart.current = null;
        return;
      }
      pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.current.size === 2 && zoomable) {
        swipeStart.current = null;
        pinch.current = { distance: spread(), zoom };
      } else if (pointers.current.size === 1) {
        swipeStart.current = { x: event.clientX, y: event.clientY, id: event.pointerId };
      } else {
        swipeStart.current = null;
      }
    },
    onPointerMove: (event: ReactPointerEvent) => {
      if (!pointers.current.has(event.pointerId)) return;
      pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (!pinch.current || pointers.current.size < 2) return;
      const [a, b] = Array.from(pointers.current.values());
      const scroller = (event.currentTarget as HTMLElement).querySelector<HTMLElement>('.viewer-scroll');
      const box = scroller?.getBoundingClientRect();
      const at = scroller && box && a && b ? { scroller, x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top } : null;
      onZoom(pinchZoom(pinch.current.zoom, pinch.current.distance, spread()), at);
    },
    onPointerUp: (event: ReactPointerEvent) => {
      if (!end(event)) return;
      const start = swipeStart.current;
      swipeStart.current = null;
      if (!start || start.id !== event.pointerId || clampZoom(zoom) !== 1) return;
      const direction = swipeDirection(event.clientX - start.x, event.clientY - start.y);
      if (direction) onSwipe(direction);
    },
    onPointerCancel: (event: ReactPointerEvent) => {
      end(event);
      swipeStart.current = null;
    },
  };
}

/** The way to the file's original: a sandboxed tab, or a download. */
interface Original {
  label: string;
  /** Saved to the device (else opened in a tab). */
  download: boolean;
  onClick: () => void;
}

function ViewerProblem({ message, onRetry, original }: { message: string; onRetry?: () => void; original?: Original }) {
  return (
    <div className="viewer-card">
      <Banner kind="error">{message}</Banner>
      {onRetry ? (
        <button type="button" className="btn btn-small viewer-control" onClick={onRetry}>
          Try again
        </button>
      ) : null}
      {original ? (
        <button type="button" className="btn btn-primary" onClick={original.onClick}>
          {original.label}
        </button>
      ) : null}
    </div>
  );
}

interface ContentProps {
  answer: ViewerResponse;
  file: StoredFile | undefined;
  name: string;
  zoom: number;
  page: number;
  pageCount: number;
  onTurn: (page: number) => void;
  /** The links have expired (or a picture failed and Try again was pressed): ask for the file
   * again, a new opening with new links. */
  onExpired: () => void;
  original: Original;
  /** The version shown, for its words (the text layer) and the find's highlights. */
  version: ViewerVersion;
  textLayer: boolean;
  matchesOn: (page: number) => readonly TextMatch[];
  current: TextMatch | null;
}

function Content(props: ContentProps) {
  // A PDF's active content (JavaScript, launch actions, embedded files): a warning line above it.
  const active = props.answer.activeContent || props.file?.activeContent;
  if (!active) return <Shown {...props} />;
  return (
    <div className="viewer-image-wrap">
      <Banner kind="warning">{VIEWER_MSG.activeContent(active)}</Banner>
      <Shown {...props} />
    </div>
  );
}

function Shown({ answer, file, name, zoom, page, pageCount, onTurn, onExpired, original, version, textLayer, matchesOn, current }: ContentProps) {
  const expired = () => Date.parse(answer.expiresAt) <= Date.now();
  const text = { version, textLayer, matchesOn, current };
  if (answer.kind === 'image' && answer.imageUrl) {
    const image = <ImageView url={answer.imageUrl} name={name} zoom={zoom} expired={expired} onExpired={onExpired} original={original} {...text} />;
    // Beyond what the server hands a browser to decode, the picture is its reduced copy.
    if (!answer.imageReduced) return image;
    return (
      <div className="viewer-image-wrap">
        <Banner kind="info">{VIEWER_MSG.imageReduced}</Banner>
        {image}
      </div>
    );
  }
  if (answer.kind === 'pdf' && answer.pageUrl) {
    return (
      <PdfView
        template={answer.pageUrl}
        widths={answer.pageWidths}
        page={page}
        pageCount={pageCount}
        zoom={zoom}
        onTurn={onTurn}
        expired={expired}
        onExpired={onExpired}
        {...text}
      />
    );
  }
  if (answer.kind === 'text' && answer.textUrl) return <TextView url={answer.textUrl} name={name} zoom={zoom} version={version} />;
  if (answer.kind === 'html' && answer.htmlUrl) return <HtmlView url={answer.htmlUrl} name={name} version={version} />;
  return <OtherCard answer={answer} file={file} original={original} />;
}

/**
 * An image (at `src`) that could not be loaded: when its link has expired, the viewer asks for
 * new ones, once per expiry (a picture failing again by the new links says why instead of
 * opening the file again and again; one that loads lets the next expiry, later in the same
 * file, ask again: `onLoad`); otherwise it says why, in the server's words when it gave some (an
 * image element cannot read them: the same link is asked once more, as data).
 */
function useImageFailure(src: string, expired: () => boolean, onExpired: () => void) {
  const [failure, setFailure] = useState<{ src: string; message: string | null } | null>(null);
  const renewed = useRef(false);
  const onLoad = () => {
    renewed.current = false;
  };
  const onError = () => {
    if (expired() && !renewed.current) {
      renewed.current = true;
      onExpired();
      return;
    }
    setFailure({ src, message: null });
    fetch(src, { credentials: 'same-origin' })
      .then(async (response) => (response.ok ? null : messageOf(await response.json().catch(() => null))))
      .catch(() => null)
      .then((message) => message && setFailure((current) => (current?.src === src ? { src, message } : current)));
  };
  const failed = failure?.src === src;
  return { failed, message: failed ? failure.message : null, onError, onLoad };
}

interface ImageViewProps {
  url: string;
  name: string;
  zoom: number;
  expired: () => boolean;
  onExpired: () => void;
  original: Original;
}

/** What a page needs for its text layer and highlights. */
interface PageText {
  version: ViewerVersion;
  textLayer: boolean;
  matchesOn: (page: number) => readonly TextMatch[];
  current: TextMatch | null;
}

function ImageView({ url, name, zoom, expired, onExpired, original, version, textLayer, matchesOn, current }: ImageViewProps & PageText) {
  const frame = useRef<HTMLDivElement>(null);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [box, setBox] = useState<{ w: number; h: number } | null>(null);
  const src = serverUrl(url);
  const { failed, message, onError, onLoad } = useImageFailure(src, expired, onExpired);
  useEffect(() => {
    const node = frame.current;
    if (!node) return;
    const measure = () => setBox({ w: node.clientWidth, h: node.clientHeight });
    measure();
    if (typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(measure);
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  // Fitted: as large as the screen allows, never enlarged beyond its own size; then zoomed.
  const fit = natural && box && box.w > 0 && box.h > 0 ? Math.min(1, box.w / natural.w, box.h / natural.h) : null;
  const size = fit !== null && natural ? { width: Math.round(natural.w * fit * zoom), height: Math.round(natural.h * fit * zoom) } : undefined;
  if (failed) return <ViewerProblem message={message ?? VIEWER_MSG.imageFailed} onRetry={onExpired} original={original} />;
  return (
    <div ref={frame} className={`viewer-scroll viewer-image${zoom > 1 ? ' zoomed' : ''}`} tabIndex={0} role="region" aria-label={VIEWER_MSG.imageRegion(name)}>
      {/* An image is page 1 of its words. */}
      <PageSheet version={version} page={1} textLayer={textLayer} matches={matchesOn(1)} current={current?.page === 1 ? current : null} style={size}>
        <img
          src={src}
          alt={name}
          className={size ? undefined : 'viewer-fit'}
          onLoad={(event) => {
            onLoad();
            setNatural({ w: event.currentTarget.naturalWidth || 1, h: event.currentTarget.naturalHeight || 1 });
          }}
          onError={onError}
          draggable={false}
        />
      </PageSheet>
    </div>
  );
}

interface PdfViewProps {
  template: string;
  /** The widths the server renders pages at. */
  widths: readonly number[];
  page: number;
  pageCount: number;
  zoom: number;
  onTurn: (page: number) => void;
  expired: () => boolean;
  onExpired: () => void;
}

function PdfView({ template, widths, page, pageCount, zoom, onTurn, expired, onExpired, version, textLayer, matchesOn, current }: PdfViewProps & PageText) {
  const frame = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState<number | null>(null);
  const [loaded, setLoaded] = useState<number | null>(null);
  const src = width === null ? null : serverUrl(pageLink(template, page, width));
  const { failed, message, onError, onLoad } = useImageFailure(src ?? '', expired, onExpired);
  const [jump, setJump] = useState('');
  // A page turned empties the page field.
  const [jumpPage, setJumpPage] = useState(page);
  if (jumpPage !== page) {
    setJumpPage(page);
    setJump('');
  }
  const jumpId = useId();

  // The pages are rendered for the screen's width in device pixels, one of a few widths the
  // server keeps (never smaller: a wider screen later asks for wider pages). Measured before the
  // first paint, so the picture is asked for in the same task that lays the viewer out.
  useLayoutEffect(() => {
    const node = frame.current;
    if (!node) return;
    const measure = () => {
      const wanted = pageWidthFor(node.clientWidth || window.innerWidth, window.devicePixelRatio || 1, widths);
      setWidth((current) => (current !== null && current >= wanted ? current : wanted));
    };
    measure();
    if (typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(measure);
    observer.observe(node);
    return () => observer.disconnect();
  }, [widths]);

  const go = (event: FormEvent) => {
    event.preventDefault();
    const target = Number(jump);
    if (Number.isInteger(target) && target >= 1 && target <= pageCount) onTurn(target);
  };

  return (
    <div className="viewer-pdf">
      <div ref={frame} className={`viewer-scroll viewer-page${zoom > 1 ? ' zoomed' : ''}`} tabIndex={0} role="region" aria-label={VIEWER_MSG.pagePosition(page, pageCount)}>
        {failed ? (
          <ViewerProblem message={message ?? VIEWER_MSG.pageFailed} onRetry={onExpired} />
        ) : src !== null && width !== null ? (
          // Every page at one scale: the width of the screen times the zoom (fitted to the width
          // at 1), whatever its own size in pixels.
          <PageSheet
            key={page}
            version={version}
            page={page}
            textLayer={textLayer}
            matches={matchesOn(page)}
            current={current?.page === page ? current : null}
            style={{ width: `${zoom * 100}%` }}
          >
            <img
              src={src}
              alt={VIEWER_MSG.pagePosition(page, pageCount)}
              onLoad={() => {
                onLoad();
                setLoaded(page);
              }}
              onError={onError}
              draggable={false}
            />
          </PageSheet>
        ) : null}
        {/* The next page travels while this one is read: an image the browser fetches but
            does not show, so that turning the page finds it in the cache. */}
        {width !== null && loaded === page && page < pageCount ? (
          <img className="viewer-ahead" src={serverUrl(pageLink(template, page + 1, width))} alt="" aria-hidden="true" hidden />
        ) : null}
      </div>
      <nav className="viewer-pages" aria-label="Pages">
        <button type="button" className="btn btn-small viewer-control" onClick={() => onTurn(page - 1)} disabled={page <= 1}>
          Previous page
        </button>
        <span className="viewer-page-number" aria-live="polite" aria-atomic="true">
          {VIEWER_MSG.pagePosition(page, pageCount)}
        </span>
        <button type="button" className="btn btn-small viewer-control" onClick={() => onTurn(page + 1)} disabled={page >= pageCount}>
          Next page
        </button>
        {pageCount > 1 ? (
          <form className="viewer-jump" onSubmit={go}>
            <label htmlFor={jumpId} className="small">
              Go to page
            </label>
            <input
              id={jumpId}
              type="number"
              inputMode="numeric"
              min={1}
              max={pageCount}
              className="viewer-control"
              value={jump}
              onChange={(event) => setJump(event.target.value)}
            />
            <button type="submit" className="btn btn-small viewer-control">
              Go
            </button>
          </form>
        ) : null}
      </nav>
    </div>
  );
}

/** A text (or an RTF's text) at the zoom's share of its font size, its lines wrapped to the
 * screen; a copy from it is reported as one from a page (page 1). */
function TextView({ url, name, zoom, version }: { url: string; name: string; zoom: number; version: ViewerVersion }) {
  const text = useViewerText(url);
  if (text.isPending) {
    return (
      <p className="viewer-note" role="status">
        {VIEWER_MSG.loading}
      </p>
    );
  }
  if (text.isError) return <ViewerProblem message={viewerErrorMessage(text.error, false)} onRetry={() => void text.refetch()} />;
  return (
    <div className="viewer-text-wrap">
      {text.data.cut ? <Banner kind="info">{VIEWER_MSG.textCut}</Banner> : null}
      {/* Text, never markup: React sets it as a text node. */}
      <pre
        className="viewer-scroll viewer-text"
        style={{ '--text-zoom': zoom } as CSSProperties}
        tabIndex={0}
        role="region"
        aria-label={VIEWER_MSG.textRegion(name)}
        onCopy={() => reportCopy(version, 1, document.getSelection())}
      >
        {text.data.text}
      </pre>
    </div>
  );
}

/** A file that cannot be displayed (a damaged PDF kept): said so, with its original as a download. */
function NotDisplayable({ file, original }: { file: StoredFile | undefined; original: Original }) {
  return (
    <div className="viewer-card">
      {file ? (
        <p className="viewer-icon" aria-hidden="true">
          {fileTypeBadge(file)}
        </p>
      ) : null}
      <Banner kind="warning">{VIEWER_MSG.notDisplayable}</Banner>
      {file ? (
        <p className="muted small">
          {file.contentType} · {formatFileSize(file.contentLength)}
        </p>
      ) : null}
      <button type="button" className="btn btn-primary" onClick={original.onClick}>
        {original.label}
      </button>
    </div>
  );
}

function OtherCard({ answer, file, original }: { answer: ViewerResponse; file: StoredFile | undefined; original: Original }) {
  // Why the viewer cannot show it when the server says (a damaged PDF, a file too large), and
  // for an image over the browser's budget that its original is a download.
  const next = answer.originalDownload ? VIEWER_MSG.downloadIt : original.download ? VIEWER_TEXT.downloadIt : VIEWER_MSG.openIt;
  return (
    <div className="viewer-card">
      <p className="viewer-icon" aria-hidden="true">
        {fileTypeBadge(file ?? { name: answer.name, contentType: answer.contentType })}
      </p>
      <p>{answer.reason ? `${answer.reason} ${next}` : original.download ? VIEWER_TEXT.notShownDownload : VIEWER_MSG.notShown}</p>
      <p className="muted small">
        {answer.contentType} · {formatFileSize(answer.contentLength)}
      </p>
      <button type="button" className="btn btn-primary" onClick={original.onClick}>
        {original.label}
      </button>
    </div>
  );
}

/**
 * A DOCX as the sanitised HTML the server made of it, in a sandboxed frame that runs no script
 * and sends no form (the server's answer carries a strict CSP too: no script, nothing remote).
 * The sandbox keeps the app's origin alone (allow-same-origin, never with allow-scripts), so that
 * the viewer sees a copy in the frame's document and reports it like any other (page 1).
 */
function HtmlView({ url, name, version }: { url: string; name: string; version: ViewerVersion }) {
  const onLoad = (event: SyntheticEvent<HTMLIFrameElement>) => {
    const frame = event.currentTarget;
    const doc = frame.contentDocument;
    doc?.addEventListener('copy', () => reportCopy(version, 1, doc.getSelection()));
    // Escape in the frame (focus is there once the reader clicked in it) closes the viewer as
    // it does anywhere else in it.
    doc?.addEventListener('keydown', (key) => {
      if (key.key === 'Escape') frame.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
  };
  return (
    <iframe
      className="viewer-html"
      sandbox="allow-same-origin"
      src={serverUrl(url)}
      title={VIEWER_TEXT.htmlRegion(name)}
      referrerPolicy="no-referrer"
      onLoad={onLoad}
    />
  );
}
