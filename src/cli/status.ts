import { compile } from '../compile/compile.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';
import { rememberedConfigHash } from '../fleet/config-hash.js';
import { readFleet } from '../fleet/fleet.js';
import { connectRedis } from '../store/redis-connection.js';
import { storeKindName, storeKindOf } from '../store/redis-url.js';

/**
 * `gateway status`: the fleet as published in the shared store (instances alive in the last
 * heartbeat TTL, with their config hashes), and whether each serves the config at hand.
 * Exit 0 when every instance serves this config, 3 when some differ, 1 on errors.
 */
export async function runStatus(configPath: string, format: 'text' | 'json'): Promise<number> {
  const { runtime, diagnostics } = compile(loadProject(configPath));
  if (!runtime) {
    for (const d of diagnostics) console.error(formatDiagnostic(d));
    return 1;
  }
  const { store } = runtime.config;
  if (storeKindOf(store.url) === 'memory') {
    console.error('store.url is memory: each instance keeps its own state and publishes no fleet; set a Redis store.url');
    return 1;
  }
  const errors: string[] = [];
  const conn = connectRedis(store.url, (m) => errors.push(m), store.tls);
  try {
    if (!(await conn.ready(5000))) {
      console.error(`store unreachable: ${errors[0] ?? 'timed out'}`);
      return 1;
    }
    const own = rememberedConfigHash(runtime.config, runtime.routes.map((r) => r.spec));
    const members = await readFleet(conn);
    const rows = members.map((m) => ({ ...m, same_config: m.config_hash === own }));
    if (format === 'json') {
      console.log(JSON.stringify({ store: storeKindName(conn.kind), config_hash: own, instances: rows }, null, 2));
    } else {
      console.log(`store: ${storeKindName(conn.kind)}   this config: ${own.slice(0, 12)}   instances: ${rows.length}`);
      const width = Math.max(8, ...rows.map((r) => r.instance_id.length));
      console.log(`${'INSTANCE'.padEnd(width)}  CONFIG        PID      STARTED                   SEEN`);
      for (const r of rows) {
        console.log(`${r.instance_id.padEnd(width)}  ${r.config_hash.slice(0, 12)}${r.same_config ? ' ' : '*'} ${String(r.pid).padEnd(8)} ${r.started_at.padEnd(25)} ${r.seen_at}`);
      }
      if (rows.some((r) => !r.same_config)) console.log('* serves a different config than this file');
    }
    return rows.some((r) => !r.same_config) ? 3 : 0;
  } finally {
    await conn.close();
  }
}
