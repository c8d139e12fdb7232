/** An image fitted to the screen (never enlarged beyond its own size), then zoomed; its words
 * (page 1) over it as PageSheet lays them. */
import { useEffect, useRef, useState } from 'react';
import { serverUrl } from '../../../../lib/api/client';
import { VIEWER_MSG } from '../../messages';
import { PageSheet } from './PageSheet';
import { useImageFailure } from './useImageFailure';
import { ViewerProblem } from './ViewerCards';
import type { Original, PageText } from './viewerTypes';

interface ImageViewProps {
  url: string;
  name: string;
  zoom: number;
  expired: () => boolean;
  onExpired: () => void;
  original: Original;
}

export function ImageView({ url, name, zoom, expired, onExpired, original, version, textLayer, matchesOn, current }: ImageViewProps & PageText) {
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
