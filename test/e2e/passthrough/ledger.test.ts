import { expect } from 'chai';
import { join } from 'node:path';
import pg from 'pg';
import OpenAI, { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startFakeProvider, type FakeProvider } from './support/fake-provider.js';
import { PROVIDER_KEYS, passthroughEnv, writePassthroughProject } from './support/project.js';

interface Row { route: string; provider: string; status: number; cost_usd: string; request_bytes: string | null; response_bytes: string | null; latency_ms: number; key_name: string; request_id: string }

describe('e2e/passthrough: the ledger row of a forwarded request (PostgreSQL)', function () {
  this.timeout(30_000);
  const key = { key: 'sk-pt-ledger-0123456789', name: 'ledger-key' };
  let db: TestDatabase;
  let openai: FakeProvider;
  let gw: TestGateway;

  before(async () => {
    db = await createMigratedDatabase();
    openai = await startFakeProvider('openai', PROVIDER_KEYS.openai);
    const anthropic = 'http://127.0.0.1:9';
    const project = writePassthroughProject({ openai: openai.url, anthropic, dead: anthropic }, [key], { url: db.url, journal: join(makeTempDir('gw-pt-journal-'), 'journal.jsonl') });
    gw = await startGateway({ configPath: project, env: passthroughEnv });
  });
  after(async () => {
    await gw?.close();
    await openai?.close();
    await db?.drop();
  });

  it('records status, bytes both ways, duration and cost = charge_usd under the gateway request id', async () => {
    const client = new OpenAI({ apiKey: key.key, baseURL: `${gw.url}/passthrough/openai/v1`, maxRetries: 0 });
    const content = Buffer.alloc(5000, 0x7a);
    const { data: file, response } = await client.files.create({ file: await toFile(content, 'in.jsonl'), purpose: 'batch' }).withResponse();
    const requestId = response.headers.get('x-request-id')!;
    const sent = openai.received.at(-1)!.bytes;
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      let row: Row | undefined;
      await waitFor(async () => {
        row = (await pool.query<Row>('SELECT * FROM usage_events WHERE request_id = $1', [requestId])).rows[0];
        return row !== undefined;
      }, 10_000, 'the ledger row');
      expect(row).to.include({ route: 'passthrough-openai.yaml', provider: 'openai', status: 200, key_name: 'ledger-key' });
      expect(Number(row!.cost_usd)).to.equal(0.001);
      expect(Number(row!.request_bytes)).to.equal(sent).and.to.be.above(content.length);
      expect(Number(row!.response_bytes)).to.equal(Buffer.byteLength(JSON.stringify({ ...file })));
      expect(row!.latency_ms).to.be.a('number');
    } finally {
      await pool.end();
    }
  });
});
