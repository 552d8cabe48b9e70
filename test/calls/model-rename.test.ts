import { expect } from 'chai';
import { writeSseFrame } from '../../src/sse-frame.js';
import { splitSseBlocks } from '../../src/upstream/sse-blocks.js';
import { ModelRenamer } from '../../src/calls/model-rename.js';

const chunk = (id: string, model: string, text: string) => `data: {"id":"${id}","object":"chat.completion.chunk","model":"${model}","choices":[{"delta":{"content":"${text}"}}]}\n\n`;

describe('calls/model-rename', () => {
  describe('ModelRenamer#rename', () => {
    it('renames the model in data and wire text of every frame, at the learned offset and elsewhere', () => {
      const renamer = new ModelRenamer('openai/gpt-x');
      const rename = (f: Parameters<ModelRenamer['rename']>[0]) => renamer.rename(f);
      const { frames } = splitSseBlocks(chunk('c1', 'gpt-x-2025', 'a') + chunk('c1', 'gpt-x-2025', 'b') + chunk('c-longer-id', 'gpt-x-2025', 'c') + chunk('c1', 'gpt-x-2026', '\\"model\\":\\"x\\"'));
      const out = frames.map(rename);
      expect(JSON.parse(out[3]!.data).choices[0].delta.content).to.equal('"model":"x"');
      expect(out.map((f) => JSON.parse(f.data).model)).to.deep.equal(['openai/gpt-x', 'openai/gpt-x', 'openai/gpt-x', 'openai/gpt-x']);
      for (const f of out) expect(writeSseFrame(f)).to.equal(`data: ${f.data}\n\n`);
      expect(out[2]!.raw).to.include('"id":"c-longer-id"');
    });

    it('leaves a frame without a model as it is, and never reads replacement patterns', () => {
      const renamer = new ModelRenamer('a/$&-model');
      const rename = (f: Parameters<ModelRenamer['rename']>[0]) => renamer.rename(f);
      const plain = { data: '{"type":"ping"}', raw: 'data: {"type":"ping"}\n\n' };
      expect(rename(plain)).to.equal(plain);
      expect(JSON.parse(rename({ data: '{"model":"m"}' }).data).model).to.equal('a/$&-model');
    });

    it('drops the wire text of a frame it cannot edit in place', () => {
      const renamer = new ModelRenamer('p/m');
      const rename = (f: Parameters<ModelRenamer['rename']>[0]) => renamer.rename(f);
      const out = rename({ event: 'x', data: '{"model":"m0"}', raw: 'event: x\ndata:{"model":"m0"}\r\n\r\n' });
      expect(out).to.deep.equal({ event: 'x', data: '{"model":"p/m"}' });
    });
  });
});
