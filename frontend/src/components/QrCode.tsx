/** A QR code drawn as inline SVG (no canvas, no inline styles: the CSP allows neither script nor style). */
import { useMemo } from 'react';
import { qrShape } from '../lib/qr';

export function QrCode({ value, label, size = 200 }: { value: string; label: string; size?: number }) {
  const shape = useMemo(() => qrShape(value), [value]);
  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${shape.size} ${shape.size}`}
      shapeRendering="crispEdges"
    >
      <rect width={shape.size} height={shape.size} fill="#fff" />
      <path d={shape.path} fill="#000" />
    </svg>
  );
}
