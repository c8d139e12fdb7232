/**
 * A file's thumbnail in the list, or its type when it has none (yet). Fixed size, so nothing
 * moves when a thumbnail arrives; asked for only once its row comes near the screen (one shared
 * IntersectionObserver; the browser's lazy loading as well), so a folder of hundreds of files
 * shows at once and loads only what is seen.
 */
import { useEffect, useRef, useState } from 'react';
import { serverUrl } from '../../../lib/api/client';
import type { StoredFile } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';

/** The thumbnail's box (CSS pixels); the server renders about 256 px on the long side. */
export const THUMB_PX = 56;

type Watcher = (near: boolean) => void;
let observer: IntersectionObserver | null = null;
const watchers = new Map<Element, Watcher>();

/** Tell `watch` once `node` comes within a screen's margin of the viewport; returns the unwatch. */
function whenNear(node: Element, watch: Watcher): () => void {
  if (typeof IntersectionObserver !== 'function') {
    watch(true);
    return () => undefined;
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) watchers.get(entry.target)?.(true);
    },
    { rootMargin: '200px 0px' },
  );
  watchers.set(node, watch);
  observer.observe(node);
  return () => {
    watchers.delete(node);
    observer?.unobserve(node);
    // The last row gone (the folder page left): the observer goes too.
    if (watchers.size === 0) {
      observer?.disconnect();
      observer = null;
    }
  };
}

export function FileThumb({ file }: { file: StoredFile }) {
  const box = useRef<HTMLSpanElement>(null);
  const [near, setNear] = useState(false);
  // The link first shown stays while it works: each listing signs new links, and a new link
  // would fetch the same picture again. A new version of the file starts afresh.
  const [src, setSrc] = useState<{ url: string; version: string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const preview = file.preview ?? null;

  useEffect(() => {
    const node = box.current;
    if (!node || near) return;
    return whenNear(node, (seen) => {
      if (seen) setNear(true);
    });
  }, [near]);

  const current = src && src.version === file.lastModified ? src : null;
  if (near && preview && !current && failed !== preview) setSrc({ url: preview, version: file.lastModified });
  // A link that failed (expired before its row was seen) is replaced by the listing's newer one.
  if (current && failed === current.url && preview && preview !== current.url) setSrc({ url: preview, version: file.lastModified });

  const showing = current && failed !== current.url ? current.url : null;
  return (
    <span ref={box} className="file-thumb" aria-hidden="true">
      {showing ? (
        <img
          src={serverUrl(showing)}
          alt=""
          width={THUMB_PX}
          height={THUMB_PX}
          loading="lazy"
          decoding="async"
          onError={() => setFailed(showing)}
        />
      ) : (
        <span className="file-icon">{fileTypeBadge(file)}</span>
      )}
    </span>
  );
}
