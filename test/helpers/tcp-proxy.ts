// A loopback TCP proxy in front of PostgreSQL that a test can cut and restore, to take the database away from a
// running server without touching the database server itself.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones. */
  cut(): void;
  restore(): void;
  /** Drops every open connection and keeps accepting new ones, as a failover leaves a pool's connections stale. */
  reset(): void;
  /** The next message a client sends that contains `text` is passed on, and the server's answer to it is dropped
   *  with that client's connection: the server did the work, the client never hears whether it did. */
  loseAnswerTo(text: string): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let open = true;
  let trap: string | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let trapped = false;
    client.on('data', (chunk: Buffer) => {
      if (trap && chunk.includes(trap)) [trap, trapped] = [undefined, true];
    });
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!trapped) return void client.write(chunk);
      client.destroy();
      upstream.destroy();
    });
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    reset() {
      for (const s of sockets) s.destroy();
    },
    loseAnswerTo(text) {
      trap = text;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
