import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy on 127.0.0.1 that a test stops (every connection cut) and restarts on the same port. */
export interface TcpProxy {
  port: number;
  /** Cuts every open connection and refuses new ones until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<random port> to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () => new Promise<void>((resolve, reject) => {
    const s = createServer((client) => {
      const upstream = connect(target.port, target.host);
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      port = (s.address() as AddressInfo).port;
      server = s;
      resolve();
    });
  });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return { get port() { return port; }, stop, start: listen, close: stop };
}
