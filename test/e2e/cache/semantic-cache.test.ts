import { expect } from 'chai';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { applyMigrations } from '../../../src/ledger/migrations.js';
import { createPgPool } from '../../../src/ledger/pg-pool.js';
import { openPgSemanticIndex } from '../../../src/store/semantic-index-pg.js';
import { TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { queryOnce, type TestDatabase } from '../../helpers/postgres.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';
import { answerTopicVectors, cosine, createDatabaseWithoutExtensions, createVectorDatabase, topicVector } from './semantic-support.js';

const CHAT = 'openai/gpt-4.1-mini';
const EMBED = 'openai/text-embedding-3-small';
const OTHER_KEY = 'semantic-other-key-0123456789';
const SEMANTIC = { enabled: true, semantic: { embedding_model: EMBED, threshold: 0.95 } };

const QUESTION = 'What is the capital of France?';
const PARAPHRASE = "Tell me France's capital city.";
const UNRELATED = 'How is the weather in Oslo tomorrow?';

/** A system prompt no other test uses: entries live as long as the gateway, and this keeps each test's partition its own. */
function system(label: string): OpenAI.ChatCompletionMessageParam {
  return { role: 'system', content: `${label} ${randomBytes(4).toString('hex')}` };
}

/** The same suite on each index: the official openai SDK as the client, the kit as every provider. */
/** What a suite's index gives it: the gateway's environment, clean-up, and (PostgreSQL) the count of stored vectors. */
interface IndexUnderTest { env: Record<string, string>; after?: () => Promise<void>; stored?: () => Promise<number> }

/** What a suite's extra tests get. */
interface SuiteContext { gw: TestGateway; kit: KitUpstreams; client: OpenAI; storing: <T>(call: () => Promise<T>) => Promise<T> }

function semanticSuite(name: string, open: () => Promise<IndexUnderTest>, extra?: (ctx: () => SuiteContext) => void): void {
  describe(`e2e/cache: the semantic cache, ${name} index (openai SDK, fake-upstream kit)`, function () {
    this.timeout(40_000);
    let kit: KitUpstreams;
    let gw: TestGateway;
    let client: OpenAI;
    let other: OpenAI;
    let cleanup: (() => Promise<void>) | undefined;
    let stored: (() => Promise<number>) | undefined;

    before(async () => {
      kit = await startKitUpstreams();
      const opened = await open();
      cleanup = opened.after;
      stored = opened.stored;
      gw = await startScenarioGateway(kit, { cache: SEMANTIC }, { GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}`, ...opened.env });
      client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: OTHER_KEY, maxRetries: 0 });
    });
    after(async () => {
      await gw?.close();
      await kit?.close();
      await cleanup?.();
    });
    beforeEach(() => {
      kit.reset();
      answerTopicVectors(kit.openai);
    });
    afterEach(() => expect(kit.violations(), 'requests a provider would have refused').to.deep.equal([]));

    /**
     * Runs a call that stores a prompt and, where the index is a database, waits until its
     * vector is there (it is written after the answer, not awaited): a paraphrase asked within
     * the same milliseconds may otherwise miss, which is fine for a cache and flaky for a test.
     */
    const storing = async <T>(call: () => Promise<T>): Promise<T> => {
      const before = await stored?.();
      const out = await call();
      if (before !== undefined) await waitFor(async () => (await stored!()) > before, 10_000, 'the prompt\'s vector stored');
      return out;
    };
    const chatCalls = () => kit.openai.requests.filter((r) => r.dialect !== 'openai-embeddings');
    const embedCalls = () => kit.openai.requests.filter((r) => r.dialect === 'openai-embeddings');

    it('a paraphrase of a stored prompt is a semantic hit: the stored answer, the similarity, cost 0, no chat call', async () => {
      const sys = system('paraphrase');
      const first = await storing(() => client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: QUESTION }] }).withResponse());
      expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
      const second = await client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: PARAPHRASE }] }).withResponse();
      expect(second.response.headers.get('x-gateway-cache')).to.equal('semantic-hit');
      const similarity = second.response.headers.get('x-gateway-cache-similarity');
      expect(similarity).to.match(/^0\.9\d\d$/);
      expect(Number(similarity)).to.be.closeTo(cosine(topicVector(QUESTION), topicVector(PARAPHRASE)), 0.001);
      expect(second.data.choices[0]!.message.content).to.equal(first.data.choices[0]!.message.content);
      expect(second.data.usage!.prompt_tokens, 'the stored usage').to.equal(first.data.usage!.prompt_tokens);
      expect(second.response.headers.get('x-gateway-cost')).to.equal('0');
      expect(second.response.headers.get('age')).to.match(/^\d+$/);
      expect(chatCalls(), 'the paraphrase never reached the chat upstream').to.have.length(1);
      // Each prompt's last user turn was embedded once, through the gateway's embeddings path.
      expect(embedCalls().map((r) => r.body.input)).to.deep.equal([QUESTION, PARAPHRASE]);
      expect(embedCalls()[0]!.body.model).to.equal('text-embedding-3-small');
    });

    it('replays a semantic hit as a stream when the client streams', async () => {
      const sys = system('stream');
      const plain = await storing(() => client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: QUESTION }] }));
      const { data: stream, response } = await client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: PARAPHRASE }], stream: true, stream_options: { include_usage: true } }).withResponse();
      expect(response.headers.get('x-gateway-cache')).to.equal('semantic-hit');
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).to.equal(plain.choices[0]!.message.content);
      expect((usage as unknown as { cost: number }).cost).to.equal(0);
      expect(chatCalls()).to.have.length(1);
    });

    /** Asks `content` after the test's own system prompt; the answer's x-gateway-cache. */
    const ask = async (c: OpenAI, sys: OpenAI.ChatCompletionMessageParam, content: string, temperature?: number): Promise<string | null> => {
      const before = await stored?.();
      const res = await c.chat.completions.create({ model: CHAT, temperature, messages: [sys, { role: 'user', content }] }).withResponse();
      const status = res.response.headers.get('x-gateway-cache');
      if (status === 'miss' && before !== undefined) await waitFor(async () => (await stored!()) > before, 10_000, 'the prompt\'s vector stored');
      return status;
    };

    it('an unrelated prompt misses and is answered upstream', async () => {
      const sys = system('unrelated');
      expect(await ask(client, sys, QUESTION)).to.equal('miss');
      expect(await ask(client, sys, UNRELATED)).to.equal('miss');
      expect(chatCalls()).to.have.length(2);
    });

    it('a paraphrase asked with another temperature misses (parameters must match)', async () => {
      const sys = system('temperature');
      expect(await ask(client, sys, QUESTION, 0.2)).to.equal('miss');
      expect(await ask(client, sys, PARAPHRASE, 0.9)).to.equal('miss');
      expect(await ask(client, sys, PARAPHRASE, 0.2), 'the same temperature hits').to.equal('semantic-hit');
      expect(chatCalls()).to.have.length(2);
    });

    it('scope key keeps two keys apart: another key asking the paraphrase misses', async () => {
      const sys = system('scope');
      expect(await ask(client, sys, QUESTION)).to.equal('miss');
      expect(await ask(other, sys, PARAPHRASE)).to.equal('miss');
      expect(chatCalls()).to.have.length(2);
      // Its own question asked again by the other key is its hit.
      expect(await ask(other, sys, QUESTION)).to.equal('semantic-hit');
    });

    extra?.(() => ({ gw, kit, client, storing }));
  });
}

semanticSuite('memory', async () => ({ env: {} }));

let vectorDb: TestDatabase & { vector: 'pgvector' | 'stand-in' };
semanticSuite('PostgreSQL (pgvector)', async () => {
  vectorDb = await createVectorDatabase();
  const pool = createPgPool(vectorDb.url, () => undefined, 1);
  try {
    await applyMigrations(pool);
  } finally {
    await pool.end();
  }
  const dir = makeTempDir('gw-semantic-');
  return {
    env: { GATEWAY_LEDGER_URL: vectorDb.url, GATEWAY_LEDGER_JOURNAL: join(dir, 'journal.jsonl') },
    after: () => vectorDb.drop(),
    stored: async () => Number((await queryOnce<{ n: string }>(vectorDb.url, 'SELECT count(*)::text AS n FROM semantic_cache_vectors'))[0]!.n),
  };
}, (ctx) => {
  it('keeps the vectors in PostgreSQL, and the embedding call is a priced ledger row of the asking key', async () => {
    const { client, storing } = ctx();
    const sys = system('ledger');
    const first = await storing(() => client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: QUESTION }] }).withResponse());
    const hit = await client.chat.completions.create({ model: CHAT, messages: [sys, { role: 'user', content: PARAPHRASE }] }).withResponse();
    expect(hit.response.headers.get('x-gateway-cache')).to.equal('semantic-hit');
    const rows = await queryOnce<{ n: string }>(vectorDb.url, 'SELECT count(*)::text AS n FROM semantic_cache_vectors');
    expect(Number(rows[0]!.n)).to.be.greaterThan(0);
    const firstId = first.response.headers.get('x-request-id')!;
    const hitId = hit.response.headers.get('x-request-id')!;
    type Row = { request_id: string; operation: string; model: string; cost_usd: string; key_name: string; cache_hit: boolean; saved_usd: string };
    const read = () => queryOnce<Row>(vectorDb.url,
      'SELECT request_id, operation, model, cost_usd::text, key_name, cache_hit, saved_usd::text FROM usage_events WHERE request_id = ANY($1) ORDER BY request_id',
      [[firstId, `${firstId}~embed`, hitId, `${hitId}~embed`]]);
    await waitFor(async () => (await read()).length === 4, 10_000, 'four ledger rows');
    const byId = new Map((await read()).map((r) => [r.request_id, r]));
    for (const id of [firstId, hitId]) {
      const embed = byId.get(`${id}~embed`)!;
      expect(embed).to.include({ operation: 'embeddings', model: EMBED, key_name: byId.get(id)!.key_name });
      expect(Number(embed.cost_usd), 'the embedding is priced like any embeddings call').to.be.greaterThan(0);
    }
    expect(byId.get(hitId)).to.include({ cache_hit: true, cost_usd: '0.000000000' });
    expect(Number(byId.get(hitId)!.saved_usd)).to.equal(Number(byId.get(firstId)!.cost_usd));
  });
});

describe('e2e/cache: the semantic cache where PostgreSQL cannot have pgvector', function () {
  this.timeout(40_000);
  let db: TestDatabase & { roleUrl: string };
  let kit: KitUpstreams;
  let gw: TestGateway;

  before(async () => {
    db = await createDatabaseWithoutExtensions();
    kit = await startKitUpstreams();
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
    await db?.drop();
  });

  it('the migration says so, the index opener says why, and the gateway serves semantic hits from memory', async () => {
    const warnings: string[] = [];
    const pool = createPgPool(db.roleUrl, () => undefined, 1);
    try {
      await applyMigrations(pool, undefined, (m) => warnings.push(m));
    } finally {
      await pool.end();
    }
    expect(warnings.join('\n')).to.match(/semantic cache: the pgvector extension could not be created .*postgresql-15-pgvector/);
    const opened = await openPgSemanticIndex(db.roleUrl, () => undefined);
    expect(opened).to.have.property('unavailable').that.matches(/pgvector extension could not be created/);

    gw = await startScenarioGateway(kit, { cache: SEMANTIC }, { GATEWAY_LEDGER_URL: db.roleUrl, GATEWAY_LEDGER_JOURNAL: join(makeTempDir('gw-semantic-'), 'journal.jsonl') });
    answerTopicVectors(kit.openai);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    await client.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: QUESTION }] });
    const hit = await client.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: PARAPHRASE }] }).withResponse();
    expect(hit.response.headers.get('x-gateway-cache')).to.equal('semantic-hit');
  });
});
