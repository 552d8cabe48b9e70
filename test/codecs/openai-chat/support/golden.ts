/**
 * The generic golden-file runner for codec formats. One folder per case under
 * test/fixtures/codecs/<format>/<case>/; each check runs when its input and expected files exist:
 *
 * | check                          | input                                   | expected              |
 * |--------------------------------|-----------------------------------------|-----------------------|
 * | surface.decodeRequest          | client-request.json                     | internal.json         |
 * | surface.decodeRequest rejects  | client-request.json                     | decode-error.json     |
 * | dialect.encodeRequest (+schema)| internal.json [+ target.json]           | upstream-request.json |
 * | dialect.decodeResponse         | upstream-response.json [+ internal.json]| internal-response.json|
 * | surface.encodeResponse         | internal-response.json + internal.json  | client-response.json  |
 * | dialect stream decoder         | upstream-stream.sse [+ internal.json]   | internal-stream.json  |
 * | surface stream encoder         | internal-stream.json + internal.json [+ stream-failure.json] | client-stream.json |
 * | dialect.decodeError            | upstream-error.json {status, body}      | decoded-error.json    |
 *
 * A file holding `{"$include": "<format>/<case>/<file>"}` is read from that other case, so a
 * chain across formats (chat client -> anthropic upstream) is tested on the very same data.
 * In expected files, the strings "<number>" and "<string>" match any value of that type
 * (timestamps and ids a codec has to invent). Run with GOLDEN_UPDATE=1 to write missing
 * expected files from the current output (then review them by hand).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import type { CodecError, DialectCodec, DialectTarget, SseFrame, SurfaceCodec } from '../../../../src/codecs/codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../../../../src/codecs/internal.js';
import { isGatewayError } from '../../../../src/errors/gateway-error.js';
import { openApiValidator, type OpenApiDocument } from '../../../helpers/openapi.js';

/** Everything the runner needs to know about one format. */
export interface GoldenFormat {
  format: string;
  surface: SurfaceCodec;
  dialect: DialectCodec;
  /** Schema every upstream request body must satisfy, e.g. `openai.json#/components/schemas/...` (see test/helpers/openapi.ts). */
  requestSchemaRef: `${OpenApiDocument}#${string}`;
}

const ROOT = path.resolve(process.cwd(), 'test/fixtures/codecs');
const UPDATE = process.env.GOLDEN_UPDATE === '1';

/** Reads a fixture file (following `$include`), or undefined when absent. */
export function readFixture<T = unknown>(format: string, name: string, file: string): T | undefined {
  const full = path.join(ROOT, format, name, file);
  if (!existsSync(full)) return undefined;
  const text = readFileSync(full, 'utf8');
  if (file.endsWith('.sse')) return text as T;
  const value = JSON.parse(text) as unknown;
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { $include?: unknown }).$include === 'string') {
    const [otherFormat, otherCase, otherFile] = ((value as { $include: string }).$include).split('/');
    const included = readFixture<T>(otherFormat!, otherCase!, otherFile!);
    if (included === undefined) throw new Error(`${format}/${name}/${file}: $include target missing`);
    return included;
  }
  return value as T;
}

/** Case folder names of a format. */
export function listCases(format: string): string[] {
  return readdirSync(path.join(ROOT, format), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

/** Replaces, in a copy of `actual`, the values the expected side leaves open ("<number>", "<string>"). */
export function applyPlaceholders(actual: unknown, expected: unknown): unknown {
  if (expected === '<number>' && typeof actual === 'number') return expected;
  if (expected === '<string>' && typeof actual === 'string') return expected;
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((a, i) => applyPlaceholders(a, expected[i]));
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && !Array.isArray(actual)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(actual)) out[key] = applyPlaceholders(value, (expected as Record<string, unknown>)[key]);
    return out;
  }
  return actual;
}

/** Compares against an expected fixture (or writes it in update mode). */
function expectGolden(format: string, name: string, file: string, actual: unknown): void {
  const plain = JSON.parse(JSON.stringify(actual)) as unknown;
  const expected = readFixture(format, name, file);
  if (expected === undefined && UPDATE) {
    writeFileSync(path.join(ROOT, format, name, file), `${JSON.stringify(plain, null, 2)}\n`);
    return;
  }
  expect(applyPlaceholders(plain, expected), `${format}/${name}/${file}`).to.deep.equal(expected);
}

/** Parses a recorded SSE body into frames, as the upstream client does. */
export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = createParser({ onEvent: (e) => frames.push({ ...(e.event ? { event: e.event } : {}), data: e.data }) });
  parser.feed(text);
  return frames;
}

/** Frames as compared in client-stream.json: data parsed when it is JSON. */
function readableFrames(frames: SseFrame[]): unknown[] {
  return frames.map((f) => {
    let data: unknown = f.data;
    try { data = JSON.parse(f.data); } catch { /* keep text such as [DONE] */ }
    return { ...(f.event !== undefined ? { event: f.event } : {}), data };
  });
}

function targetFor(format: string, name: string, conversation: Conversation): DialectTarget {
  const raw = readFixture<{ upstreamModel?: string; supportedParameters?: string[]; options?: Record<string, unknown> }>(format, name, 'target.json') ?? {};
  return {
    upstreamModel: raw.upstreamModel ?? conversation.model.split('/').slice(1).join('/'),
    supportedParameters: new Set(raw.supportedParameters ?? []),
    options: raw.options ?? {},
  };
}

const has = (format: string, name: string, ...files: string[]) => files.every((f) => existsSync(path.join(ROOT, format, name, f)));

/** A conversation to hand codecs that need the request (defaults when the case has none). */
function requestOf(format: string, name: string): Conversation {
  return readFixture<Conversation>(format, name, 'internal.json') ?? { model: 'test/model', system: [], messages: [], stream: true };
}

/** Declares the mocha suites of one format. */
export function describeGoldenCases(spec: GoldenFormat): void {
  const { format, surface, dialect } = spec;
  const cases = listCases(format);

  describe(`codecs/${format} (golden files in test/fixtures/codecs/${format})`, () => {
    it('has at least one check in every case folder', () => {
      const inputs = ['client-request.json', 'internal.json', 'upstream-response.json', 'internal-response.json', 'upstream-stream.sse', 'internal-stream.json', 'upstream-error.json'];
      for (const name of cases) expect(inputs.some((f) => has(format, name, f)), `${name} has no input file`).to.equal(true);
    });

    describe('surface.decodeRequest', () => {
      for (const name of cases.filter((c) => has(format, c, 'client-request.json') && (has(format, c, 'internal.json') || UPDATE) && !has(format, c, 'decode-error.json'))) {
        it(`turns client-request.json into internal.json (${name})`, () => {
          expectGolden(format, name, 'internal.json', surface.decodeRequest(readFixture(format, name, 'client-request.json')!));
        });
      }
      for (const name of cases.filter((c) => has(format, c, 'client-request.json', 'decode-error.json'))) {
        it(`rejects client-request.json as decode-error.json says (${name})`, () => {
          const expected = readFixture<{ status: number; code: string }>(format, name, 'decode-error.json')!;
          let thrown: unknown;
          try { surface.decodeRequest(readFixture(format, name, 'client-request.json')!); } catch (e) { thrown = e; }
          expect(isGatewayError(thrown), 'throws a GatewayError').to.equal(true);
          expect({ status: (thrown as { status: number }).status, code: (thrown as { code: string }).code }).to.deep.equal(expected);
        });
      }
    });

    describe('dialect.encodeRequest', () => {
      const [document, pointer] = spec.requestSchemaRef.split('#') as [OpenApiDocument, string];
      const validate = openApiValidator(document, pointer);
      for (const name of cases.filter((c) => has(format, c, 'internal.json') && (has(format, c, 'upstream-request.json') || (UPDATE && !has(format, c, 'decode-error.json'))))) {
        it(`turns internal.json into upstream-request.json, valid against the provider schema (${name})`, () => {
          const conversation = readFixture<Conversation>(format, name, 'internal.json')!;
          const request = dialect.encodeRequest(conversation, targetFor(format, name, conversation));
          expect(validate(request.body), `${name}: ${spec.requestSchemaRef}`).to.deep.equal([]);
          expectGolden(format, name, 'upstream-request.json', request);
        });
      }
    });

    describe('dialect.decodeResponse', () => {
      for (const name of cases.filter((c) => has(format, c, 'upstream-response.json') && (has(format, c, 'internal-response.json') || UPDATE))) {
        it(`turns upstream-response.json into internal-response.json (${name})`, () => {
          expectGolden(format, name, 'internal-response.json', dialect.decodeResponse(readFixture(format, name, 'upstream-response.json'), requestOf(format, name)));
        });
      }
    });

    describe('surface.encodeResponse', () => {
      for (const name of cases.filter((c) => has(format, c, 'internal-response.json') && (has(format, c, 'client-response.json') || UPDATE))) {
        it(`turns internal-response.json into client-response.json (${name})`, () => {
          const response = readFixture<InternalResponse>(format, name, 'internal-response.json')!;
          expectGolden(format, name, 'client-response.json', surface.encodeResponse(response, requestOf(format, name)));
        });
      }
    });

    describe('dialect.createStreamDecoder', () => {
      for (const name of cases.filter((c) => has(format, c, 'upstream-stream.sse') && (has(format, c, 'internal-stream.json') || UPDATE))) {
        it(`turns upstream-stream.sse into internal-stream.json (${name})`, () => {
          const decoder = dialect.createStreamDecoder(requestOf(format, name));
          const events: StreamEvent[] = [];
          for (const frame of parseSse(readFixture<string>(format, name, 'upstream-stream.sse')!)) events.push(...decoder.decode(frame));
          events.push(...decoder.end());
          expectGolden(format, name, 'internal-stream.json', events);
        });
      }
    });

    describe('surface.createStreamEncoder', () => {
      for (const name of cases.filter((c) => has(format, c, 'internal-stream.json') && (has(format, c, 'client-stream.json') || UPDATE))) {
        it(`turns internal-stream.json into client-stream.json, event by event (${name})`, () => {
          const encoder = surface.createStreamEncoder(requestOf(format, name));
          const frames: SseFrame[] = [];
          for (const event of readFixture<StreamEvent[]>(format, name, 'internal-stream.json')!) frames.push(...encoder.encode(event));
          const failure = readFixture<CodecError>(format, name, 'stream-failure.json');
          frames.push(...(failure ? encoder.fail(failure) : encoder.end()));
          expectGolden(format, name, 'client-stream.json', readableFrames(frames));
        });
      }
    });

    describe('dialect.decodeError', () => {
      for (const name of cases.filter((c) => has(format, c, 'upstream-error.json') && (has(format, c, 'decoded-error.json') || UPDATE))) {
        it(`turns upstream-error.json into decoded-error.json (${name})`, () => {
          const { status, body } = readFixture<{ status: number; body: unknown }>(format, name, 'upstream-error.json')!;
          expectGolden(format, name, 'decoded-error.json', dialect.decodeError(status, body));
        });
      }
    });
  });
}
