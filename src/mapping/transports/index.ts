import { asyncJobTransport } from './async-job.js';
import { binaryTransport } from './binary.js';
import { jsonTransport, multipartTransport } from './json.js';
import type { Transport } from './transport.js';
import { websocketRelayTransport } from './websocket-relay.js';

export type { OperationFn, Transport } from './transport.js';

/** Every transport a mapping may name, by name. */
export const transports: ReadonlyMap<string, Transport> = new Map(
  [jsonTransport, multipartTransport, binaryTransport, asyncJobTransport, websocketRelayTransport].map((t) => [t.name, t]),
);
