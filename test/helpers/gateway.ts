import { resolve } from 'node:path';
import { compile } from '../../src/compile/compile.js';
import { formatDiagnostic } from '../../src/config/diagnostics.js';
import { loadProject } from '../../src/config/load-project.js';
import { createLogger } from '../../src/observability/logger.js';
import { startGateway as start } from '../../src/server/start.js';

/** The API key every test gateway accepts unless a test sets its own. */
export const TEST_KEY = 'test-key-0123456789';

/** A gateway running on 127.0.0.1 with a random port. */
export interface TestGateway { url: string; key: string; close(): Promise<void> }

/**
 * Boots the real server from a config project (gateway.yaml + routes/ beside it) with the
 * given environment on top of a clean one (provider keys of the developer's shell are not
 * inherited, so tests never reach a real provider).
 */
export async function startGateway(options: { env?: Record<string, string>; configPath?: string } = {}): Promise<TestGateway> {
  const env: Record<string, string> = {
    GATEWAY_API_KEYS: TEST_KEY,
    GATEWAY_FILES_DIR: resolve(process.cwd(), '.gateway/test-files'),
    LOG_LEVEL: 'silent',
    // One try per target, and breakers that do not open on a suite's deliberate failures: the
    // suites that assert how one upstream failure is answered see it unretried and unguarded;
    // the resilience suites (test/e2e/routing) set their own attempts and breakers.
    GATEWAY_RETRY_ATTEMPTS: '1',
    GATEWAY_BREAKER_FAILURES: '1000000',
    ...options.env,
  };
  const project = loadProject(options.configPath ?? process.env.GATEWAY_TEST_CONFIG ?? resolve(process.cwd(), 'gateway.yaml'), env);
  const { runtime, diagnostics } = compile(project, env);
  if (!runtime) throw new Error(`test config does not compile:\n${diagnostics.map(formatDiagnostic).join('\n')}`);
  const gw = await start(runtime, { host: '127.0.0.1', port: 0, logger: createLogger('silent') });
  return { url: gw.url, key: env.GATEWAY_API_KEYS!.split(',')[0]!, close: () => gw.close() };
}
