/**
 * The in-app viewer (issue 33), loaded on first use: one file of the folder in a dialog with its
 * own URL (the folder page's `?view=`): images fitted to the screen with zoom, PDFs a page at a
 * time as images the server renders at the screen's width (the next page fetched ahead), an image
 * too large to hand to the browser as the reduced copy the server rendered (with a note; the
 * review's 900-megapixel bomb too, streamed by libvips; none at all when the server cannot make
 * one: it says why), texts as text, anything else a card with "Open original". An image over the
 * browser's budget is never opened in a tab: its original is "Download original" (the server
 * sends it only as an attachment: `originalDownload`). Previous and next file (buttons, arrow
 * keys, a swipe on a phone), Escape closes, focus stays inside and goes back to the file's row.
 * No PDF is read by a script here: pages arrive as images through signed short-lived links.
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { Banner } from '../../../../components/Banner';
import { messageOf, serverUrl } from '../../../../lib/api/client';
import { wrapTab } from '../../../../lib/focusTrap';
import type { StoredFile, ViewerResponse } from '../../../../lib/api/types';
import { fileTypeBadge } from '../../../../lib/files';
import { formatFileSize } from '../../../../lib/format';
import { useViewer, useViewerText } from '../../api/viewer';
import { VIEWER_MSG, viewerErrorMessage } from '../../messages';
import { nextZoom, pageLink, pageWidthFor, swipeDirection, ZOOM_STEPS } from './viewerRules';

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
  /** Saves the original to the device: an image the server sends only as a download. */
  onDownloadOriginal: (name: string) => void;
  ios: boolean;
}

/** The row button that opens `name` in the file list, to give focus back to. */
function rowOf(name: string): HTMLElement | null {
  return Array.from(document.querySelectorAll<HTMLElement>('[data-file-open]')).find((el) => el.dataset.fileOpen === name) ?? null;
}

const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);

export default function FileViewer({ container, folder, files, name, onNavigate, onClose, onOpenOriginal, onDownloadOriginal, ios }: FileViewerProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const index = files.findIndex((file) => file.name === name);
  const file = index >= 0 ? files[index] : undefined;
  const previous = index > 0 ? files[index - 1] : undefined;
  const next = index >= 0 && index < files.length - 1 ? files[index + 1] : undefined;
  // A file the listing says cannot be displayed (a damaged PDF kept) is not asked for: its card
  // offers the original as a download.
  const displayable = file?.displayable ?? true;
  const viewer = useViewer(container, folder, name, file?.lastModified ?? '', displayable);
  const kind = viewer.data?.kind;
  const zoomable = kind === 'image' || kind === 'pdf';
  const [zoom, setZoom] = useState(1);
  const [page, setPage] = useState(1);
  const pageCount = kind === 'pdf' ? Math.max(1, viewer.data?.pageCount ?? 1) : 1;
  // The original of an image over the browser's budget is a download, never a tab.
  const original: Original = viewer.data?.originalDownload || !displayable
    ? { label: VIEWER_MSG.downloadOriginal, onClick: () => onDownloadOriginal(name) }
    : { label: VIEWER_MSG.openOriginal, onClick: () => onOpenOriginal(name) };

  // Another file starts unzoomed at its first page.
  const [shown, setShown] = useState(name);
  if (shown !== name) {
    setShown(name);
    setZoom(1);
    setPage(1);
  }

  const goTo = useCallback((target: StoredFile | undefined) => target && onNavigate(target.name), [onNavigate]);
  const turn = useCallback((to: number) => setPage(Math.min(Math.max(1, to), pageCount)), [pageCount]);

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
      if (key === 'ArrowLeft' && previous) goTo(previous);
      else if (key === 'ArrowRight' && next) goTo(next);
      else if (kind === 'pdf' && key === 'PageDown') turn(page + 1);
      else if (kind === 'pdf' && key === 'PageUp') turn(page - 1);
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

  // A swipe to the side on a touch screen goes to the previous or next file (not while zoomed:
  // then the finger moves the picture).
  const swipeStart = useRef<{ x: number; y: number; id: number } | null>(null);
  const onPointerDown = (event: ReactPointerEvent) => {
    swipeStart.current = event.pointerType === 'mouse' ? null : { x: event.clientX, y: event.clientY, id: event.pointerId };
  };
  const onPointerUp = (event: ReactPointerEvent) => {
    const start = swipeStart.current;
    swipeStart.current = null;
    if (!start || start.id !== event.pointerId || zoom !== 1) return;
    const direction = swipeDirection(event.clientX - start.x, event.clientY - start.y);
    if (direction === 'next') goTo(next);
    else if (direction === 'previous') goTo(previous);
  };

  const position = index >= 0 ? VIEWER_MSG.filePosition(index + 1, files.length) : null;

  return (
    <div className="viewer-backdrop">
      <div ref={ref} className="viewer" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <div className="viewer-bar">
          <h2 id={titleId} className="viewer-title">
            {name}
          </h2>
          {position ? <span className="viewer-position muted small">{position}</span> : null}
          <div className="viewer-tools">
            {zoomable ? (
              <span className="viewer-zoom" role="group" aria-label="Zoom">
                <button type="button" className="btn btn-small" onClick={() => setZoom((z) => nextZoom(z, -1))} disabled={zoom <= ZOOM_STEPS[0]!}>
                  <span aria-hidden="true">−</span>
                  <span className="visually-hidden">Zoom out</span>
                </button>
                <span className="viewer-zoom-level small" aria-live="polite">
                  {Math.round(zoom * 100)}%
                </span>
                <button type="button" className="btn btn-small" onClick={() => setZoom((z) => nextZoom(z, 1))} disabled={zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!}>
                  <span aria-hidden="true">+</span>
                  <span className="visually-hidden">Zoom in</span>
                </button>
                <button type="button" className="btn btn-small" onClick={() => setZoom(1)} disabled={zoom === 1} aria-label="Fit to screen">
                  Fit
                </button>
              </span>
            ) : null}
            <button type="button" className="btn btn-small" onClick={original.onClick} title={ios && !viewer.data?.originalDownload ? 'Tap to Open' : undefined}>
              {original.label}
            </button>
            <button type="button" className="btn btn-small" onClick={onClose} aria-label="Close viewer">
              Close
            </button>
          </div>
        </div>
        <div className="viewer-main">
          <button type="button" className="viewer-step viewer-previous" onClick={() => goTo(previous)} disabled={!previous} title={previous?.name}>
            <span aria-hidden="true">‹</span>
            <span className="visually-hidden">{previous ? VIEWER_MSG.previousFile(previous.name) : 'Previous file'}</span>
          </button>
          <div className="viewer-stage" onPointerDown={onPointerDown} onPointerUp={onPointerUp} onPointerCancel={() => (swipeStart.current = null)}>
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
                page={page}
                pageCount={pageCount}
                onTurn={turn}
                onExpired={() => void viewer.refetch()}
                original={original}
              />
            )}
          </div>
          <button type="button" className="viewer-step viewer-next" onClick={() => goTo(next)} disabled={!next} title={next?.name}>
            <span aria-hidden="true">›</span>
            <span className="visually-hidden">{next ? VIEWER_MSG.nextFile(next.name) : 'Next file'}</span>
          </button>
        </div>
      </div>
    </div>
  );
}

/** The way to the file's original: a sandboxed tab, or a download. */
interface Original {
  label: string;
  onClick: () => void;
}

function ViewerProblem({ message, onRetry, original }: { message: string; onRetry?: () => void; original?: Original }) {
  return (
    <div className="viewer-card">
      <Banner kind="error">{message}</Banner>
      {onRetry ? (
        <button type="button" className="btn btn-small" onClick={onRetry}>
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

function Shown({ answer, file, name, zoom, page, pageCount, onTurn, onExpired, original }: ContentProps) {
  const expired = () => Date.parse(answer.expiresAt) <= Date.now();
  if (answer.kind === 'image' && answer.imageUrl) {
    const image = <ImageView url={answer.imageUrl} name={name} zoom={zoom} expired={expired} onExpired={onExpired} original={original} />;
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
      <PdfView template={answer.pageUrl} widths={answer.pageWidths} page={page} pageCount={pageCount} zoom={zoom} onTurn={onTurn} expired={expired} onExpired={onExpired} />
    );
  }
  if (answer.kind === 'text' && answer.textUrl) return <TextView url={answer.textUrl} name={name} />;
  return <OtherCard answer={answer} file={file} original={original} />;
}

/**
 * An image (at `src`) that could not be loaded: when its link has expired, the viewer asks for
 * new ones (once); otherwise it says why, in the server's words when it gave some (an image
 * element cannot read them: the same link is asked once more, as data).
 */
function useImageFailure(src: string, expired: () => boolean, onExpired: () => void) {
  const [failure, setFailure] = useState<{ src: string; message: string | null } | null>(null);
  const renewed = useRef(false);
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
  return { failed, message: failed ? failure.message : null, onError };
}

interface ImageViewProps {
  url: string;
  name: string;
  zoom: number;
  expired: () => boolean;
  onExpired: () => void;
  original: Original;
}

function ImageView({ url, name, zoom, expired, onExpired, original }: ImageViewProps) {
  const frame = useRef<HTMLDivElement>(null);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [box, setBox] = useState<{ w: number; h: number } | null>(null);
  const src = serverUrl(url);
  const { failed, message, onError } = useImageFailure(src, expired, onExpired);
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
      <img
        src={src}
        alt={name}
        style={size}
        className={size ? undefined : 'viewer-fit'}
        onLoad={(event) => setNatural({ w: event.currentTarget.naturalWidth || 1, h: event.currentTarget.naturalHeight || 1 })}
        onError={onError}
        draggable={false}
      />
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

function PdfView({ template, widths, page, pageCount, zoom, onTurn, expired, onExpired }: PdfViewProps) {
  const frame = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState<number | null>(null);
  const [loaded, setLoaded] = useState<number | null>(null);
  const src = width === null ? null : serverUrl(pageLink(template, page, width));
  const { failed, message, onError } = useImageFailure(src ?? '', expired, onExpired);
  const [jump, setJump] = useState('');
  // A page turned empties the page field.
  const [jumpPage, setJumpPage] = useState(page);
  if (jumpPage !== page) {
    setJumpPage(page);
    setJump('');
  }
  const jumpId = useId();

  // The pages are rendered for the screen's width in device pixels, one of a few widths the
  // server keeps (never smaller: a wider screen later asks for wider pages).
  useEffect(() => {
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
          <img
            key={page}
            src={src}
            alt={VIEWER_MSG.pagePosition(page, pageCount)}
            style={{ width: `${zoom * 100}%` }}
            onLoad={() => setLoaded(page)}
            onError={onError}
            draggable={false}
          />
        ) : null}
        {/* The next page travels while this one is read: an image the browser fetches but
            does not show, so that turning the page finds it in the cache. */}
        {width !== null && loaded === page && page < pageCount ? (
          <img className="viewer-ahead" src={serverUrl(pageLink(template, page + 1, width))} alt="" aria-hidden="true" hidden />
        ) : null}
      </div>
      <nav className="viewer-pages" aria-label="Pages">
        <button type="button" className="btn btn-small" onClick={() => onTurn(page - 1)} disabled={page <= 1}>
          Previous page
        </button>
        <span className="viewer-page-number" aria-live="polite" aria-atomic="true">
          {VIEWER_MSG.pagePosition(page, pageCount)}
        </span>
        <button type="button" className="btn btn-small" onClick={() => onTurn(page + 1)} disabled={page >= pageCount}>
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
              value={jump}
              onChange={(event) => setJump(event.target.value)}
            />
            <button type="submit" className="btn btn-small">
              Go
            </button>
          </form>
        ) : null}
      </nav>
    </div>
  );
}

function TextView({ url, name }: { url: string; name: string }) {
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
      <pre className="viewer-scroll viewer-text" tabIndex={0} role="region" aria-label={VIEWER_MSG.textRegion(name)}>
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
  const next = answer.originalDownload ? VIEWER_MSG.downloadIt : VIEWER_MSG.openIt;
  return (
    <div className="viewer-card">
      <p className="viewer-icon" aria-hidden="true">
        {fileTypeBadge(file ?? { name: answer.name, contentType: answer.contentType })}
      </p>
      <p>{answer.reason ? `${answer.reason} ${next}` : VIEWER_MSG.notShown}</p>
      <p className="muted small">
        {answer.contentType} · {formatFileSize(answer.contentLength)}
      </p>
      <button type="button" className="btn btn-primary" onClick={original.onClick}>
        {original.label}
      </button>
    </div>
  );
}
