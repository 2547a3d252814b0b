// The QR code of an otpauth:// URI, drawn on the server: the pages take no scripts and no third-party
// images. The result is the viewBox size and one SVG path of the dark modules, plain text the views put into an
// inline <svg>, so no markup ever comes from data.
import { encode } from 'uqr';

export interface QrPath {
  size: number;
  path: string;
}

export function qrPath(text: string): QrPath {
  const { size, data } = encode(text, { ecc: 'M', border: 2 });
  const parts: string[] = [];
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) parts.push(`M${x} ${y}h1v1h-1z`);
    });
  });
  return { size, path: parts.join('') };
}
