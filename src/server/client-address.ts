import type Koa from 'koa';
import type { Request } from 'koa';
import { createClientAddressRule, type ClientAddressRule } from '../compile/client-address.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import type { GatewayConfig } from '../config/types.js';

const CLIENT_ADDRESS = Symbol('clientAddress');
type WithClientAddress = Request & { [CLIENT_ADDRESS]?: string };

/**
 * Makes `ctx.ip` (ctx.request.ip) of an app follow the runtime's rule, computed on first read
 * and kept for the request (Koa's own `app.proxy` logic takes the left-most X-Forwarded-For
 * address, which any client can forge, so it stays off). A getter on the app's request
 * prototype, not a step: requests that never read the address (most) pay nothing.
 */
export function installClientAddress(app: Koa, store: RuntimeStore): void {
  let server: GatewayConfig['server'] | undefined;
  let rule: ClientAddressRule = (peer) => peer;
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    get(this: WithClientAddress): string {
      const known = this[CLIENT_ADDRESS];
      if (known !== undefined) return known;
      const current = store.current().config.server;
      if (current !== server) {
        server = current;
        rule = createClientAddressRule(current);
      }
      const ip = rule(this.req.socket.remoteAddress ?? '', this.get('x-forwarded-for') || undefined);
      this[CLIENT_ADDRESS] = ip;
      return ip;
    },
    set(this: WithClientAddress, ip: string) {
      this[CLIENT_ADDRESS] = ip;
    },
  });
}
