/**
 * A TCP proxy in front of the PostgreSQL server that a test can cut and restore, so "the server
 * went away and came back" is shown without restarting the shared server other tests use.
 * While cut, open connections are reset and new ones are refused (the port is closed).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Reset every open connection and stop listening. */
  cut(): Promise<void>;
  /** Listen again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy on a free port forwarding to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target);
        sockets.add(client);
        sockets.add(upstream);
        const forget = () => {
          sockets.delete(client);
          sockets.delete(upstream);
          client.destroy();
          upstream.destroy();
        };
        client.on('error', forget).on('close', forget);
        upstream.on('error', forget).on('close', forget);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
      const s = server;
      server = null;
      if (!s) return resolve();
      s.close(() => resolve());
    });
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}
