/**
 * One page (or image) of the viewer with what lies over it (issue 50): the matches of a find as
 * highlight boxes, and the page's words as a selectable, searchable text layer (as pdf.js draws
 * one: transparent text positioned by the word boxes, its font as tall as a box, stretched to the
 * box's width), so that the browser's selection, copy and Ctrl+F work on a page that is a picture.
 * Boxes are placed in percentages of the sheet: they follow the picture at every zoom. A copy from
 * the text layer is reported to the server (audited there).
 */
import { Fragment, useEffect, useLayoutEffect, useRef, type CSSProperties, type ReactNode, type RefObject } from 'react';
import type { PageWord, TextMatch } from '../../../../lib/api/types';
import { reportCopy, usePageWords, type ViewerVersion } from '../../api/viewer';
import { VIEWER_TEXT } from './viewerMessages';
import { boxOf, boxStyle, separatorBefore } from './viewerRules';

interface PageSheetProps {
  version: ViewerVersion;
  page: number;
  /** The server keeps this version's words (ViewerOpen.textLayer). */
  textLayer: boolean;
  /** The find's matches on this page, and the one the viewer is at (if on this page). */
  matches: readonly TextMatch[];
  current: TextMatch | null;
  /** The sheet's size: the picture fills it. */
  style?: CSSProperties;
  /** The picture. */
  children: ReactNode;
}

export function PageSheet({ version, page, textLayer, matches, current, style, children }: PageSheetProps) {
  const sheet = useRef<HTMLDivElement>(null);
  const words = usePageWords(version, page, textLayer);
  const list = words.data?.words;

  // The sheet's height, in pixels, for the text's font size (a CSS variable: a zoom changes one
  // property, not every word).
  useEffect(() => {
    const node = sheet.current;
    if (!node) return;
    const measure = () => node.style.setProperty('--sheet-h', `${node.clientHeight}px`);
    measure();
    if (typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(() => {
      measure();
      stretch(node, false);
    });
    observer.observe(node);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const node = sheet.current;
    if (!node) return;
    node.style.setProperty('--sheet-h', `${node.clientHeight}px`);
    stretch(node, true);
  }, [list]);

  // The match the viewer moved to is scrolled into view.
  const currentHit = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const hit = currentHit.current;
    if (hit && typeof hit.scrollIntoView === 'function') hit.scrollIntoView({ block: 'center', inline: 'nearest' });
  }, [current, list]);

  return (
    <div ref={sheet} className="viewer-sheet" style={style} onCopy={() => reportCopy(version, page, document.getSelection())}>
      {children}
      {list ? <Highlights words={list} matches={matches} current={current} currentRef={currentHit} /> : null}
      {list && list.length > 0 ? <TextLayer words={list} page={page} /> : null}
    </div>
  );
}

function Highlights({
  words,
  matches,
  current,
  currentRef,
}: {
  words: readonly PageWord[];
  matches: readonly TextMatch[];
  current: TextMatch | null;
  currentRef: RefObject<HTMLDivElement | null>;
}) {
  return (
    <div className="viewer-hits" aria-hidden="true">
      {matches.map((match) => {
        const isCurrent = match === current;
        return words.slice(match.start, match.end).map((word, i) => (
          <div
            key={`${match.start}-${i}`}
            ref={isCurrent && i === 0 ? currentRef : undefined}
            className={`viewer-hit${isCurrent ? ' viewer-hit-current' : ''}`}
            data-testid="viewer-hit"
            style={boxStyle(word.box)}
          />
        ));
      })}
    </div>
  );
}

function TextLayer({ words, page }: { words: readonly PageWord[]; page: number }) {
  return (
    <div className="viewer-text-layer" aria-label={VIEWER_TEXT.textLayer(page)} role="group">
      {words.map((word, i) => {
        const separator = separatorBefore(words[i - 1], word);
        const { left, top } = boxStyle(word.box);
        const [x0, y0, x1, y1] = boxOf(word);
        const height = Math.max(0, y1 - y0);
        return (
          <Fragment key={i}>
            {separator === '\n' ? <br /> : separator}
            <span
              data-width={Math.max(0, x1 - x0)}
              style={{ left, top, fontSize: `calc(var(--sheet-h, 0px) * ${height.toFixed(5)})` }}
            >
              {word.text}
            </span>
          </Fragment>
        );
      })}
    </div>
  );
}

/**
 * Each word stretched (or squeezed) sideways to its box's width: its text's width in the browser's
 * font is not the document's. Measured once the sheet has a size; the ratio holds at every zoom
 * (the font and the box grow together), so a resize only measures words never measured.
 */
function stretch(node: HTMLElement, again: boolean): void {
  const width = node.clientWidth;
  if (width <= 0 || node.clientHeight <= 0) return;
  const spans = Array.from(node.querySelectorAll<HTMLElement>(`.viewer-text-layer > span${again ? '' : ':not([data-scaled])'}`));
  if (again) spans.forEach((span) => (span.style.transform = ''));
  // Every read before any write: one layout.
  const natural = spans.map((span) => span.offsetWidth);
  spans.forEach((span, i) => {
    const own = natural[i] ?? 0;
    if (own <= 0) return;
    const target = Number(span.dataset.width) * width;
    span.style.transform = `scaleX(${(target / own).toFixed(4)})`;
    span.dataset.scaled = '';
  });
}
