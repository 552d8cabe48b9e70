/**
 * Shared plumbing of the golden-file codec runners (openai-responses, gemini, research): one folder
 * per case under test/fixtures/codecs/<format>/<case>/ holding JSON files; a runner runs every
 * step whose input and expected files are both present. Fixture files:
 *   case.json             {description, surface?, target?: {upstreamModel, supportedParameters, options}}
 *   client-request.json   client body            <-> internal-request.json (surface decode)
 *   internal-request.json internal Conversation  -> upstream-request.json {path, body} (dialect encode)
 *   upstream-response.json                       -> internal-response.json (dialect decode)
 *   internal-response.json                       -> client-response.json (surface encode)
 *   upstream-stream.json  [{event?, data}]       -> internal-stream.json (dialect stream decode)
 *   internal-stream.json  [StreamEvent | {type:'$fail', error}] -> client-stream.json (surface stream encode)
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { CodecError, DialectTarget, SseFrame, StreamDecoder, StreamEncoder } from '../../../src/codecs/codec.js';
import type { StreamEvent } from '../../../src/codecs/internal.js';

/** The fixed clock of golden runs: 2026-01-01T00:00:00Z. */
export const FIXED_NOW_MS = 1767225600000;

/** Folder of one format's cases (resolved from the repo root: tests also run compiled from dist). */
export function fixtureRoot(format: string): string {
  return path.resolve(process.cwd(), 'test/fixtures/codecs', format);
}

/** Names of the case folders of a format, sorted. */
export function listCases(format: string): string[] {
  const root = fixtureRoot(format);
  return readdirSync(root).filter((name) => statSync(path.join(root, name)).isDirectory()).sort();
}

/** One case folder's files, read lazily. */
export class GoldenCase {
  readonly dir: string;
  constructor(format: string, readonly name: string) {
    this.dir = path.join(fixtureRoot(format), name);
  }

  has(file: string): boolean {
    return existsSync(path.join(this.dir, file));
  }

  read<T = unknown>(file: string): T {
    return JSON.parse(readFileSync(path.join(this.dir, file), 'utf8')) as T;
  }

  /** case.json (empty when absent). */
  meta(): { description?: string; surface?: string; target?: { upstreamModel?: string; supportedParameters?: string[]; options?: Record<string, unknown> } } {
    return this.has('case.json') ? this.read('case.json') : {};
  }

  /** The dialect target described by case.json. */
  target(): DialectTarget {
    const target = this.meta().target ?? {};
    return { upstreamModel: target.upstreamModel ?? 'test-model', supportedParameters: new Set(target.supportedParameters ?? []), options: target.options ?? {} };
  }
}

/** Replaces Date.now with the fixed clock for the duration of a mocha suite. */
export function useFixedClock(): void {
  const realNow = Date.now;
  before(() => {
    Date.now = () => FIXED_NOW_MS;
  });
  after(() => {
    Date.now = realNow;
  });
}

/** A recorded stream step: an internal event, or `$fail` (call the encoder's fail()). */
export type RecordedEvent = StreamEvent | { type: '$fail'; error: CodecError };

/** Feeds recorded events to an encoder; ends it with end() unless the recording failed it. */
export function runStreamEncoder(encoder: StreamEncoder, events: RecordedEvent[]): SseFrame[] {
  const frames: SseFrame[] = [];
  let failed = false;
  for (const event of events) {
    if (event.type === '$fail') {
      frames.push(...encoder.fail(event.error));
      failed = true;
    } else frames.push(...encoder.encode(event));
  }
  if (!failed) frames.push(...encoder.end());
  return frames;
}

/** Feeds recorded upstream frames (data as JSON or raw text) to a decoder, then end(). */
export function runStreamDecoder(decoder: StreamDecoder, frames: Array<{ event?: string; data: unknown }>): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const frame of frames) {
    const sse: SseFrame = { data: typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data) };
    if (frame.event !== undefined) sse.event = frame.event;
    events.push(...decoder.decode(sse));
  }
  events.push(...decoder.end());
  return events;
}

/** SSE frames with their data parsed when it is JSON, for comparison with client-stream.json. */
export function readableFrames(frames: SseFrame[]): Array<{ event?: string; data: unknown }> {
  return frames.map((frame) => {
    let data: unknown = frame.data;
    try {
      data = JSON.parse(frame.data) as unknown;
    } catch {
      // not JSON ([DONE] and the like): compare as text
    }
    return frame.event !== undefined ? { event: frame.event, data } : { data };
  });
}

/** JSON round trip: drops undefined members so objects compare like their fixture files. */
export function toPlainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Replaces the 24-hex-digit random suffixes codecs use for ids the upstream did not give
 * (`resp_<24 hex>`) by `<random>`, so such cases can still be compared to their fixture.
 */
export function maskRandomIds<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/(?<![0-9a-f])[0-9a-f]{24}(?![0-9a-f])/g, '<random>')) as T;
}
