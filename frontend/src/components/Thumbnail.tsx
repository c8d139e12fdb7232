/**
 * A thumbnail in a list (a folder's file, an intake item): the server's picture by a signed
 * link, in a fixed box so nothing moves when it arrives, else the document's type. Decorative:
 * the row names the document.
 *
 * The link first shown stays while it works: each listing signs new links every few minutes,
 * and a new link would fetch (and audit) the same picture again. A new `version` of the content
 * starts afresh; a link that failed (the server busy, or the link expired before its row was
 * seen) is asked for once more after THUMB_RETRY_MS, then replaced by the listing's newer one.
 */
import { forwardRef, useEffect, useState, type ReactNode } from 'react';
import { serverUrl } from '../lib/api/client';

/** The thumbnail's box (CSS pixels); the server renders about 256 px on the long side. */
export const THUMB_PX = 56;

interface ThumbnailProps {
  /** The listing's signed link to the picture (null: none). */
  link: string | null;
  /** What the link shows (the file's last change, the item's content version). */
  version: string;
  /** Whether to load it yet (false: its row is not near the screen). */
  ready?: boolean;
  /** The document's type, shown when there is no picture. */
  badge: ReactNode;
}

/** How long a failed picture waits before it is asked for once more (the server busy: its 503
 * says Retry-After 5; an image cannot read it). */
export const THUMB_RETRY_MS = 5000;

export const Thumbnail = forwardRef<HTMLSpanElement, ThumbnailProps>(function Thumbnail({ link, version, ready = true, badge }, box) {
  const [src, setSrc] = useState<{ url: string; version: string } | null>(null);
  // The link that failed, and whether it has been asked for again (once).
  const [failed, setFailed] = useState<{ url: string; again: boolean } | null>(null);
  const [again, setAgain] = useState<string | null>(null);
  const current = src && src.version === version ? src : null;
  const gaveUp = (url: string) => failed?.url === url && (failed.again || again !== url);
  if (ready && link && !current && failed?.url !== link) setSrc({ url: link, version });
  if (current && gaveUp(current.url) && link && link !== current.url) setSrc({ url: link, version });
  const showing = current && !gaveUp(current.url) ? current.url : null;

  useEffect(() => {
    if (!failed || failed.again) return;
    const timer = window.setTimeout(() => setAgain(failed.url), THUMB_RETRY_MS);
    return () => window.clearTimeout(timer);
  }, [failed]);

  const onError = (url: string) => setFailed(failed?.url === url && again === url ? { url, again: true } : { url, again: false });
  return (
    <span ref={box} className="file-thumb" aria-hidden="true">
      {showing ? (
        <img
          key={again === showing ? 'again' : 'first'}
          src={serverUrl(showing)}
          alt=""
          width={THUMB_PX}
          height={THUMB_PX}
          loading="lazy"
          decoding="async"
          onError={() => onError(showing)}
        />
      ) : (
        <span className="file-icon">{badge}</span>
      )}
    </span>
  );
});
