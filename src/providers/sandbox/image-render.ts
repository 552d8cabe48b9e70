import { createRandom } from './hash.js';
import { encodePng } from './png.js';

/**
 * Draws the sandbox's deterministic picture for a seed: a diagonal two-colour gradient with a
 * few coloured discs and bars placed by a seeded generator. Same seed and size -> same PNG bytes.
 * `transparent` adds an alpha channel whose background fades out.
 */
export function renderPng(width: number, height: number, seed: string, transparent: boolean): Uint8Array {
  const random = createRandom(seed);
  const pickColor = (): [number, number, number] => [Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256)];
  const from = pickColor();
  const to = pickColor();
  const shapes = Array.from({ length: 3 + Math.floor(random() * 4) }, () => ({
    disc: random() < 0.6,
    x: random() * width,
    y: random() * height,
    size: (0.08 + random() * 0.25) * Math.max(width, height),
    color: pickColor(),
  }));
  const channels = transparent ? 4 : 3;
  const pixels = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / Math.max(1, width - 1) + y / Math.max(1, height - 1)) / 2;
      let color: [number, number, number] = [0, 1, 2].map((c) => Math.round(from[c]! + (to[c]! - from[c]!) * t)) as [number, number, number];
      let alpha = transparent ? Math.round(255 * (1 - t) * 0.5) : 255;
      for (const shape of shapes) {
        const inside = shape.disc
          ? (x - shape.x) ** 2 + (y - shape.y) ** 2 <= shape.size ** 2 / 4
          : Math.abs(x - shape.x) <= shape.size / 2 && Math.abs(y - shape.y) <= shape.size / 8;
        if (inside) { color = shape.color; alpha = 255; }
      }
      const offset = (y * width + x) * channels;
      pixels.set(color, offset);
      if (transparent) pixels[offset + 3] = alpha;
    }
  }
  return encodePng(width, height, channels, pixels);
}
