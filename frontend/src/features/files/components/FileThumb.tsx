/**
 * A file's thumbnail in the list, or its type when it has none (yet). Fixed size, so nothing
 * moves when a thumbnail arrives; asked for only once its row comes near the screen (one shared
 * IntersectionObserver; the browser's lazy loading as well), so a folder of hundreds of files
 * shows at once and loads only what is seen (components/Thumbnail.tsx: the picture kept while
 * its link works).
 */
import { useEffect, useRef, useState } from 'react';
import { Thumbnail } from '../../../components/Thumbnail';
import type { StoredFile } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';

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

  useEffect(() => {
    const node = box.current;
    if (!node || near) return;
    return whenNear(node, (seen) => {
      if (seen) setNear(true);
    });
  }, [near]);

  return <Thumbnail ref={box} link={file.preview ?? null} version={file.lastModified} ready={near} badge={fileTypeBadge(file)} />;
}
