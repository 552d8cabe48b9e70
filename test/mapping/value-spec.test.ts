import { expect } from 'chai';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { MappingCompileError } from '../../src/mapping/compile-error.js';
import { MediaValue } from '../../src/mapping/media.js';
import type { ValueSpec } from '../../src/mapping/types.js';
import { compileFields, compileValue, createSpecContext, type Scope } from '../../src/mapping/value-spec.js';
import { makePng } from '../kit/providers/media-bytes.js';
import { fileRecord, makeCall } from './helpers.js';

/** Evaluates one spec against a client body (request side). */
async function evalRequest(spec: ValueSpec, body: Record<string, unknown>, call = makeCall(body)): Promise<unknown> {
  const evaluate = compileValue(spec, ['test'], createSpecContext(['model', 'upstream_model'], true));
  const scope: Scope = { root: body, request: body, vars: { model: 'acme/model-1', upstream_model: 'model-one' }, call };
  return evaluate(scope);
}

/** Evaluates a spec against an upstream answer (response side). */
async function evalResponse(spec: ValueSpec, answer: unknown, request: Record<string, unknown> = {}): Promise<unknown> {
  const evaluate = compileValue(spec, ['test'], createSpecContext(['model'], false));
  return evaluate({ root: answer, request, vars: { model: 'acme/model-1' }, call: makeCall(request) });
}

async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    return e as GatewayError;
  }
  throw new Error('expected a refusal');
}

describe('mapping/value-spec', () => {
  describe('#compileValue sources', () => {
    it('keeps scalars constant and renders templates from variables and fields', async () => {
      expect(await evalRequest('list', {})).to.equal('list');
      expect(await evalRequest(3, {})).to.equal(3);
      expect(await evalRequest('models/{upstream_model}', {})).to.equal('models/model-one');
      expect(await evalRequest('{voice:-alloy}/{model}', {})).to.equal('alloy/acme/model-1');
      expect(await evalRequest('{voice:-alloy}', { voice: 'echo' })).to.equal('echo');
      expect(await evalRequest('x-{missing}', {})).to.equal(undefined);
    });

    it('takes the first present of several fields and refuses fields that disagree', async () => {
      const spec = { from: ['dimensions', 'output_dimensionality', 'output_dimension'] };
      expect(await evalRequest(spec, { output_dimension: 256 })).to.equal(256);
      expect(await evalRequest(spec, { dimensions: 8, output_dimension: 8 })).to.equal(8);
      const e = await rejection(evalRequest(spec, { dimensions: 8, output_dimension: 16 }));
      expect(e.status).to.equal(400);
      expect(e.code).to.equal('conflicting_fields');
      expect(e.details).to.deep.equal({ fields: ['dimensions', 'output_dimension'] });
    });

    it('reads nested paths, array indexes and * over arrays', async () => {
      const answer = { candidates: [{ content: { parts: [{ text: 'a' }, { inlineData: { data: 'X' } }] } }, { content: { parts: [{ inlineData: { data: 'Y' } }] } }] };
      expect(await evalResponse({ from: 'candidates.0.content.parts.0.text' }, answer)).to.equal('a');
      expect(await evalResponse({ from: 'candidates.*.content.parts.*.inlineData.data' }, answer)).to.deep.equal(['X', 'Y']);
      expect(await evalResponse({ from: 'candidates.5.content' }, answer)).to.equal(undefined);
    });

    it('collects values into one array and picks the first spec that yields', async () => {
      const body = { image: 'a', images: ['b', 'c'] };
      expect(await evalRequest({ collect: [{ from: 'image' }, { from: 'images' }, { from: 'file_ids' }] }, body)).to.deep.equal(['a', 'b', 'c']);
      expect(await evalRequest({ collect: [{ from: 'nothing' }] }, body)).to.equal(undefined);
      expect(await evalRequest({ first: [{ from: 'nothing' }, { from: 'images.1' }] }, body)).to.equal('c');
      expect(await evalRequest({ const: [1, 2] }, body)).to.deep.equal([1, 2]);
    });
  });

  describe('#compileValue transforms', () => {
    it('maps values strictly, with keep / drop / null-to-absent options', async () => {
      const map = { query: 'search_query', document: 'search_document' };
      expect(await evalRequest({ from: 'input_type', map }, { input_type: 'query' })).to.equal('search_query');
      expect(await evalRequest({ from: 'input_type', map, default: 'document' }, {})).to.equal('search_document');
      const e = await rejection(evalRequest({ from: 'input_type', map }, { input_type: 'code' }));
      expect(e.code).to.equal('unsupported_value');
      expect(e.message).to.equal("Model 'acme/model-1' does not support input_type 'code'; supported: query, document.");
      expect(await evalRequest({ from: 'x', map, unmapped: 'keep' }, { x: 'other' })).to.equal('other');
      expect(await evalRequest({ from: 'x', map, unmapped: 'drop' }, { x: 'other' })).to.equal(undefined);
      expect(await evalRequest({ from: 'output_dtype', map: { float: null } }, { output_dtype: 'float' })).to.equal(undefined);
      expect(await evalRequest({ from: 'flag', map: { true: 'END', false: 'NONE' } }, { flag: false })).to.equal('NONE');
    });

    it('refuses a present field the upstream cannot honour, and requires absent ones', async () => {
      const refused = await rejection(evalRequest({ from: 'input_type', refuse: 'no input types here.' }, { input_type: 'query' }));
      expect(refused.code).to.equal('unsupported_parameter');
      expect(refused.message).to.contain("'input_type' is not supported by model 'acme/model-1': no input types here.");
      expect(await evalRequest({ from: 'input_type', refuse: 'no' }, {})).to.equal(undefined);
      const missing = await rejection(evalRequest({ from: 'file', required: 'Send a file.' }, {}));
      expect(missing.code).to.equal('missing_field');
      expect(missing.message).to.equal('Send a file.');
    });

    it('converts, scales, filters and sorts', async () => {
      expect(await evalRequest({ from: 'input', as: 'array' }, { input: 'one' })).to.deep.equal(['one']);
      expect(await evalRequest({ from: 'seconds', scale: 1000, as: 'integer' }, { seconds: 1.2345 })).to.equal(1235);
      expect(await evalResponse({ from: 'embeddings', as: 'first' }, { embeddings: { int8: [[1, 2]] } })).to.deep.equal([[1, 2]]);
      expect(await evalRequest({ from: 'input', as: 'token_count' }, { input: ['two words', 'three more words'] })).to.equal(5);
      expect(await evalResponse({ from: 'parts', where: 'inlineData' }, { parts: [{ text: 'a' }, { inlineData: 1 }] })).to.deep.equal([{ inlineData: 1 }]);
      const sorted = await evalResponse({ from: 'results', sort: '-score' }, { results: [{ i: 0, score: 0.1 }, { i: 1, score: 0.9 }, { i: 2, score: 0.5 }] });
      expect((sorted as Array<{ i: number }>).map((r) => r.i)).to.deep.equal([1, 2, 0]);
    });

    it('maps arrays with each ($item, $index) and builds objects, absent when their source is', async () => {
      const spec: ValueSpec = { from: 'data', each: { object: { object: 'embedding', index: { from: '$index' }, embedding: { from: '$item.values' } } } };
      expect(await evalResponse(spec, { data: [{ values: [1] }, { values: [2] }] })).to.deep.equal([
        { object: 'embedding', index: 0, embedding: [1] },
        { object: 'embedding', index: 1, embedding: [2] },
      ]);
      const doc: ValueSpec = { from: '$item.document', object: { text: { from: '$item' } } };
      const results = await evalResponse({ from: 'data', each: { object: { index: { from: '$item.index' }, document: doc } } }, { data: [{ index: 0, document: 'hi' }, { index: 1 }] });
      expect(results).to.deep.equal([{ index: 0, document: { text: 'hi' } }, { index: 1 }]);
    });

    it('names array items in errors (media[].type)', async () => {
      const spec: ValueSpec = { from: 'media', each: { object: { kind: { from: '$item.type', map: { image: 'asset' } } } } };
      const e = await rejection(evalRequest(spec, { media: [{ type: 'video' }] }));
      expect(e.message).to.contain("media[].type 'video'");
    });
  });

  describe('#compileValue media', () => {
    const png = makePng(2, 2);

    it('loads base64, data: URLs, fetched URLs and the caller\'s files as media', async () => {
      const files = new Map([['file-abc', { record: fileRecord('file-abc', 'owner-a', 'cat.png', 'image/png', png.length), bytes: png }]]);
      const body = { b64: png.toString('base64'), data: `data:image/png;base64,${png.toString('base64')}`, url: 'https://img.test/dog.png', file_id: 'file-abc' };
      const loaded = await evalRequest({ collect: [{ from: 'b64', load: 'base64' }, { from: 'data', load: 'url' }, { from: 'url', load: 'url' }, { from: 'file_id', load: 'file' }] }, body, makeCall(body, { files, fetched: { 'https://img.test/dog.png': { bytes: png, contentType: 'image/png' } } })) as MediaValue[];
      expect(loaded.map((m) => m.contentType)).to.deep.equal(['image/png', 'image/png', 'image/png', 'image/png']);
      expect(loaded.every((m) => Buffer.from(m.bytes).equals(png))).to.equal(true);
      expect(loaded.map((m) => m.filename)).to.deep.equal(['b64.png', 'data.png', 'dog.png', 'cat.png']);
      expect(await evalRequest({ from: 'b64', load: 'base64', object: { mime: { from: '$item.content_type' }, data: { from: '$item.base64' } } }, body)).to.deep.equal({ mime: 'image/png', data: png.toString('base64') });
    });

    it('refuses another owner\'s file, bad base64 and non-http URLs', async () => {
      const files = new Map([['file-abc', { record: fileRecord('file-abc', 'owner-b', 'cat.png', 'image/png', png.length), bytes: png }]]);
      const body = { file_id: 'file-abc', b64: '%%%', url: 'ftp://x/y.png' };
      const call = makeCall(body, { files });
      expect((await rejection(evalRequest({ from: 'file_id', load: 'file' }, body, call))).code).to.equal('file_not_found');
      expect((await rejection(evalRequest({ from: 'b64', load: 'base64' }, body, call))).code).to.equal('invalid_base64');
      expect((await rejection(evalRequest({ from: 'url', load: 'url' }, body, call))).code).to.equal('invalid_url');
    });

    it('names loaded files by template', async () => {
      const body = { audio: png.toString('base64'), audio_format: 'mp3' };
      const media = await evalRequest({ from: 'audio', load: 'base64', filename: 'audio.{$request.audio_format}' }, body) as MediaValue;
      expect(media.filename).to.equal('audio.mp3');
    });
  });

  describe('#compileFields', () => {
    it('writes dotted target paths, creating arrays for numeric segments and skipping absent values', async () => {
      const build = compileFields({ 'instances.0.prompt': { from: 'prompt' }, 'parameters.seed': { from: 'seed' }, 'a.b': 'x' }, ['t'], createSpecContext([], true));
      const body = { prompt: 'p' };
      expect(await build({ root: body, request: body, vars: {}, call: makeCall(body) })).to.deep.equal({ instances: [{ prompt: 'p' }], a: { b: 'x' } });
    });

    it('records the client fields it reads (for passthrough)', () => {
      const ctx = createSpecContext(['upstream_model'], true);
      compileFields({ model: '{upstream_model}', dims: { from: ['dimensions', '$request.output_dimension'] }, text: '{voice:-x}' }, ['t'], ctx);
      expect([...ctx.fields].sort()).to.deep.equal(['dimensions', 'output_dimension', 'voice']);
    });

    it('reports specs that cannot compile at their path', () => {
      expect(() => compileValue({ from: 'a', const: 1 } as ValueSpec, ['x', 'y'], createSpecContext([], true))).to.throw(MappingCompileError, 'one source').with.property('path').that.deep.equals(['x', 'y']);
      expect(() => compileValue({ from: '$nope.a' }, ['x'], createSpecContext([], true))).to.throw(MappingCompileError, "unknown path root '$nope'");
      expect(() => compileValue({ form: 'a' } as unknown as ValueSpec, ['x'], createSpecContext([], true))).to.throw(MappingCompileError, "unknown spec key 'form'");
    });
  });
});
