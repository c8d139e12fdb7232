/** A PDF a page at a time, as pictures the server renders at the screen's width (the next page
 * fetched ahead), with previous and next page and Go to page. */
import { useId, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { serverUrl } from '../../../../lib/api/client';
import { VIEWER_MSG } from '../../messages';
import { PageSheet } from './PageSheet';
import { useImageFailure } from './useImageFailure';
import { ViewerProblem } from './ViewerCards';
import { pageLink, pageWidthFor } from './viewerRules';
import type { PageText, PageTurn } from './viewerTypes';

interface PdfViewProps {
  template: string;
  /** The widths the server renders pages at. */
  widths: readonly number[];
  pages: PageTurn;
  zoom: number;
  expired: () => boolean;
  onExpired: () => void;
}

export function PdfView({ template, widths, pages, zoom, expired, onExpired, version, textLayer, matchesOn, current }: PdfViewProps & PageText) {
  const { page, count: pageCount, turn: onTurn } = pages;
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
