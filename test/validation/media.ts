/**
 * Tiny, valid media samples for request bodies, built in memory so the tests need no fixture
 * files and no network.
 */

/** A 1x1 transparent PNG (the classic minimal PNG). */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The same PNG as a data URI, an image input that is a URI string and needs no fetch. */
export const PNG_DATA_URI = `data:image/png;base64,${PNG_BASE64}`;

/** Builds a silent 16-bit mono PCM WAV of `seconds` at `rate` Hz, base64-encoded. */
export function buildSilentWavBase64(seconds = 0.1, rate = 8000): string {
  const samples = Math.round(seconds * rate);
  const data = samples * 2;
  const buf = Buffer.alloc(44 + data);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + data, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28); // byte rate
  buf.writeUInt16LE(2, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(data, 40);
  return buf.toString('base64');
}
