/** A QR code as one SVG path, from the qrcode library's module matrix (no canvas, no inline HTML). */
import QRCode from 'qrcode';

export interface QrShape {
  /** Width and height in modules, the quiet zone included. */
  size: number;
  /** An SVG path with one unit square per dark module. */
  path: string;
}

/** The QR code of a text; margin is the quiet zone in modules (4 is the standard's minimum). */
export function qrShape(text: string, margin = 4): QrShape {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const parts: string[] = [];
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.get(row, col)) parts.push(`M${col + margin} ${row + margin}h1v1h-1z`);
    }
  }
  return { size: modules.size + 2 * margin, path: parts.join('') };
}
