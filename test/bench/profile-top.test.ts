import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarizeProfile } from '../../bench/profile-top.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('bench/profile-top', () => {
  it('names a frame of a bundled file by its TypeScript source line (source map beside it), others by the compiled line', () => {
    const root = makeTempDir('gw-profile-top-');
    const chunk = join(root, 'dist', 'src', 'cli', 'chunk-TEST.js');
    const plain = join(root, 'dist', 'src', 'cli', 'plain.js');
    // One mapping (VLQ EAwCA): generated line 3, column 2 -> src/server/answer.ts line 41, column 0.
    const map = { version: 3, sources: ['../../../src/server/answer.ts'], names: [], mappings: ';;EAwCA' };
    writeFileSync(join(root, 'package.json'), '{}');
    mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(chunk, '\n\n  function sendAnswer() {}\n');
    writeFileSync(`${chunk}.map`, JSON.stringify(map));
    writeFileSync(plain, 'function other() {}\n');
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 3] },
        { id: 2, callFrame: { functionName: 'sendAnswer', url: pathToFileURL(chunk).href, lineNumber: 2, columnNumber: 2 } },
        { id: 3, callFrame: { functionName: 'other', url: pathToFileURL(plain).href, lineNumber: 0, columnNumber: 0 } },
      ],
      samples: [2, 2, 2, 3],
      timeDeltas: [1000, 1000, 1000, 1000],
    };
    const file = join(root, 'test.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const summary = summarizeProfile(file, root);
    expect(summary.self.map((h) => h.where)).to.deep.equal(['src/server/answer.ts:41 sendAnswer', 'dist/src/cli/plain.js:1 other']);
    expect(summary.self[0]!.percent).to.equal(75);
    expect(summary.chargedToGateway.map((h) => h.where)).to.deep.equal(['src/server/answer.ts:41 sendAnswer', 'dist/src/cli/plain.js:1 other']);
  });
});
