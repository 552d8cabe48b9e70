/**
 * The semantic cache suites' embeddings: the kit's OpenAI deployment answers each embeddings
 * call with a vector made from the words of its input (a topic per word), so paraphrases land
 * near each other and unrelated prompts far apart, deterministically. And the pgvector
 * database of the PostgreSQL suite.
 */
import pg from 'pg';
import type { KitUpstream } from '../../kit/fake-upstream.js';
import { createTestDatabase, POSTGRES_URL, type TestDatabase } from '../../helpers/postgres.js';

/** The topic each word stands for, and its weight there. */
const TOPICS: Record<string, [number, number]> = {
  capital: [0, 1], france: [1, 1], french: [1, 1], city: [2, 0.25],
  weather: [3, 1], oslo: [4, 1], tomorrow: [5, 0.25],
  pancakes: [6, 1], recipe: [7, 1],
};
const DIMS = 9;

/** The embedding of a text: its words' topics summed, plus a little of a shared last dimension. */
export function topicVector(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  v[DIMS - 1] = 0.05;
  for (const raw of text.toLowerCase().split(/\s+/)) {
    const word = raw.replace(/'s$/, '').replace(/[^a-z]/g, '');
    const topic = TOPICS[word];
    if (topic) v[topic[0]] += topic[1];
  }
  return v;
}

/** Cosine similarity of two vectors. */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return dot / Math.sqrt(na * nb);
}

/** Makes `upstream` answer embeddings calls with topic vectors of their input (again after each kit reset). */
export function answerTopicVectors(upstream: KitUpstream): void {
  upstream.setDefaultFault({
    transformData: (data) => {
      if (data.object !== 'list' || !Array.isArray(data.data)) return data;
      const input = upstream.last('openai-embeddings').body.input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input)];
      return { ...data, data: texts.map((t, index) => ({ object: 'embedding', index, embedding: topicVector(t) })) };
    },
  });
}

/**
 * What the pgvector suite runs on: the real extension when the server has it; else (Debian
 * bookworm ships no pgvector for PostgreSQL 15) a stand-in of the two pgvector features the
 * index uses, created before the migrations: the `vector` type taking a `real[]` cast, and the
 * `<=>` cosine distance operator. The index's SQL is the same on both.
 */
export async function createVectorDatabase(): Promise<TestDatabase & { vector: 'pgvector' | 'stand-in' }> {
  const db = await createTestDatabase();
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  let vector: 'pgvector' | 'stand-in' = 'pgvector';
  try {
    await c.query('CREATE EXTENSION vector');
  } catch {
    vector = 'stand-in';
    await c.query(`
      CREATE DOMAIN vector AS real[];
      CREATE FUNCTION standin_cosine_distance(a real[], b real[]) RETURNS double precision LANGUAGE sql IMMUTABLE STRICT AS
        'SELECT 1 - sum(x * y)::double precision / sqrt(sum(x * x)::double precision * sum(y * y)::double precision) FROM unnest(a, b) AS t(x, y)';
      CREATE OPERATOR <=> (LEFTARG = real[], RIGHTARG = real[], FUNCTION = standin_cosine_distance);`);
  } finally {
    await c.end();
  }
  return { ...db, vector };
}

/** A database whose owner and user is a role without the right to create extensions (pgvector cannot be created there). */
export async function createDatabaseWithoutExtensions(): Promise<TestDatabase & { roleUrl: string }> {
  const db = await createTestDatabase();
  const role = `${db.name}_role`;
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`GRANT CONNECT ON DATABASE ${db.name} TO ${role}`);
    await admin.query(`REVOKE CREATE ON DATABASE ${db.name} FROM PUBLIC`);
    await admin.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
  } finally {
    await admin.end();
  }
  const url = new URL(db.url);
  url.username = role;
  return {
    ...db,
    roleUrl: url.toString(),
    async drop() {
      await db.drop();
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await c.end();
      }
    },
  };
}
