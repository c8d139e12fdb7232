/** Documents the viewer shows as text: a text or an RTF's text, and a DOCX's sanitised HTML. */
import type { CSSProperties, SyntheticEvent } from 'react';
import { Banner } from '../../../../components/Banner';
import { serverUrl } from '../../../../lib/api/client';
import { reportCopy, useViewerText, type ViewerVersion } from '../../api/viewer';
import { VIEWER_MSG, viewerErrorMessage } from '../../messages';
import { ViewerProblem } from './ViewerCards';
import { VIEWER_TEXT } from './viewerMessages';

/** A text (or an RTF's text) at the zoom's share of its font size, its lines wrapped to the
 * screen; a copy from it is reported as one from a page (page 1). */
export function TextView({ url, name, zoom, version }: { url: string; name: string; zoom: number; version: ViewerVersion }) {
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

/**
 * A DOCX as the sanitised HTML the server made of it, in a sandboxed frame that runs no script
 * and sends no form (the server's answer carries a strict CSP too: no script, nothing remote).
 * The sandbox keeps the app's origin alone (allow-same-origin, never with allow-scripts), so that
 * the viewer sees a copy in the frame's document and reports it like any other (page 1).
 */
export function HtmlView({ url, name, version }: { url: string; name: string; version: ViewerVersion }) {
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
