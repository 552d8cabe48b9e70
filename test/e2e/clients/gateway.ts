/**
 * The gateway every real-client test talks to: the repo gateway.yaml on the deterministic sandbox
 * provider (no network), booted once per file on 127.0.0.1.
 */
import type { TestGateway } from '../../helpers/gateway.js';
import { bootSandbox, KEY_A } from '../sandbox/helpers.js';

/** The sandbox text model: echoes, calls offered tools, answers JSON that fits a requested schema. */
export const SANDBOX_MODEL = 'sandbox/echo-1';

/** The gateway key the clients use. */
export const CLIENT_KEY = KEY_A;

/** Registers before/after hooks booting the gateway; read `.gw` inside tests. */
export function useSandboxGateway(): { gw: TestGateway } {
  const holder = {} as { gw: TestGateway };
  before(async () => { holder.gw = await bootSandbox(); });
  after(async () => { await holder.gw?.close(); });
  return holder;
}
