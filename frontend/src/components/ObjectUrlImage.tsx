/** An <img> showing a Blob through an object URL that is revoked when the blob changes or the image goes. */
import { useEffect, useRef } from 'react';

export function ObjectUrlImage({ blob, alt, className }: { blob: Blob; alt: string; className?: string }) {
  const ref = useRef<HTMLImageElement>(null);
  useEffect(() => {
    // Set on the element rather than in state: each effect run owns exactly the URL it revokes.
    const url = URL.createObjectURL(blob);
    if (ref.current) ref.current.src = url;
    return () => URL.revokeObjectURL(url);
  }, [blob]);
  return <img ref={ref} alt={alt} className={className} />;
}
