import { expect } from 'chai';
import { createMemorySemanticIndex } from '../../src/store/semantic-index.js';

describe('store: the in-memory semantic index', () => {
  it('finds the most similar vector of a partition by cosine similarity, never another partition\'s', async () => {
    const index = createMemorySemanticIndex(10);
    await index.add('p', 'north', [0, 1], 60);
    await index.add('p', 'east', [1, 0.1], 60);
    await index.add('q', 'exact', [2, 0], 60);
    const near = await index.nearest('p', [4, 0]);
    expect(near!.key).to.equal('east');
    expect(near!.similarity).to.be.closeTo(1 / Math.sqrt(1.01), 1e-6);
    expect(await index.nearest('none', [1, 0])).to.equal(undefined);
    expect(await index.nearest('p', [0, 0]), 'a zero vector compares with nothing').to.equal(undefined);
  });

  it('drops vectors past their lifetime and the oldest past max_entries; a re-store moves a vector to the end', async () => {
    let now = 0;
    const index = createMemorySemanticIndex(2, () => now);
    await index.add('p', 'a', [1, 0], 10);
    await index.add('p', 'b', [0, 1], 100);
    now = 11_000;
    expect((await index.nearest('p', [1, 0]))!.key, 'a expired').to.equal('b');
    await index.add('p', 'a', [1, 0], 100);
    await index.add('p', 'b', [0, 1], 100);
    await index.add('p', 'c', [1, 1], 100);
    expect((await index.nearest('p', [1, 0.01]))!.key, 'a, the oldest, was dropped for c').to.equal('c');
    expect((await index.nearest('p', [0, 1]))!.key).to.equal('b');
  });
});
