/** What the sandbox can tell about an image from its bytes. */
export interface ImageInfo { format: 'png' | 'jpeg' | 'gif' | 'webp'; contentType: string; width?: number; height?: number }

/**
 * Recognizes PNG, JPEG, GIF and WebP by their magic bytes and reads the pixel size from the
 * header (PNG IHDR, JPEG SOFn, GIF logical screen, WebP VP8/VP8L/VP8X). Undefined = not an image.
 */
export function probeImage(bytes: Uint8Array): ImageInfo | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) {
    return { format: 'png', contentType: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { format: 'jpeg', contentType: 'image/jpeg', ...readJpegSize(b) };
  if (b.length >= 10 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) {
    return { format: 'gif', contentType: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 16 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    return { format: 'webp', contentType: 'image/webp', ...readWebpSize(b) };
  }
  return undefined;
}

function readJpegSize(b: Buffer): { width?: number; height?: number } {
  let offset = 2;
  while (offset + 9 < b.length) {
    if (b[offset] !== 0xff) return {};
    const marker = b[offset + 1]!;
    const length = b.readUInt16BE(offset + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(offset + 5), width: b.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return {};
}

function readWebpSize(b: Buffer): { width?: number; height?: number } {
  const kind = b.toString('latin1', 12, 16);
  if (kind === 'VP8X' && b.length >= 30) return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (kind === 'VP8 ' && b.length >= 30) return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (kind === 'VP8L' && b.length >= 25) {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return {};
}
