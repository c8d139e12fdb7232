/**
 * A thumbnail in a list (a folder's file, an intake item): the server's picture by a signed
 * link, in a fixed box so nothing moves when it arrives, else the document's type. Decorative:
 * the row names the document.
 *
 * The link first shown stays while it works: each listing signs new links every few minutes,
 * and a new link would fetch (and audit) the same picture again. A new `version` of the content
 * starts afresh; a link that failed (expired before its row was seen, the server busy) is
 * replaced by the listing's newer one, never tried again.
 */
import { forwardRef, useState, type ReactNode } from 'react';
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

export const Thumbnail = forwardRef<HTMLSpanElement, ThumbnailProps>(function Thumbnail({ link, version, ready = true, badge }, box) {
  const [src, setSrc] = useState<{ url: string; version: string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const current = src && src.version === version ? src : null;
  if (ready && link && !current && failed !== link) setSrc({ url: link, version });
  if (current && failed === current.url && link && link !== current.url) setSrc({ url: link, version });
  const showing = current && failed !== current.url ? current.url : null;
  return (
    <span ref={box} className="file-thumb" aria-hidden="true">
      {showing ? (
        <img src={serverUrl(showing)} alt="" width={THUMB_PX} height={THUMB_PX} loading="lazy" decoding="async" onError={() => setFailed(showing)} />
      ) : (
        <span className="file-icon">{badge}</span>
      )}
    </span>
  );
});
