/** The viewer's zoom: out, the level, in, and Fit. */
import type { Dispatch, SetStateAction } from 'react';
import type { ViewerResponse } from '../../../../lib/api/types';
import { VIEWER_TEXT } from './viewerMessages';
import { nextZoom, ZOOM_STEPS } from './viewerRules';

export function ViewerZoom({ zoom, kind, setZoom }: { zoom: number; kind: ViewerResponse['kind'] | undefined; setZoom: Dispatch<SetStateAction<number>> }) {
  return (
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
  );
}
