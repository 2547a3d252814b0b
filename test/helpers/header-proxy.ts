// A forwarding proxy in front of Gatehouse, as a web application firewall that holds the user's session is: every
// request is forwarded unchanged (method, path, query, headers, cookies) to Gatehouse, with the header the test decides
// on added; Gatehouse's answer goes back to the browser as it is.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeaderProxy {
  url: string;
  /** The header to add to the next requests (undefined: none). */
  setHeader(name: string, value: string | undefined): void;
  /** While held, requests are answered by the proxy itself (its own sign-in page) and not forwarded. */
  hold(held: boolean): void;
  close(): Promise<void>;
}

export async function startHeaderProxy(upstream: string): Promise<HeaderProxy> {
  const target = new URL(upstream);
  let added: { name: string; value: string } | undefined;
  let held = false;
  const server = createServer((req, res) => {
    if (held) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><title>Proxy</title><h1 id="proxy">Sign in at the proxy</h1>');
    }
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    if (added) headers[added.name.toLowerCase()] = added.value;
    const forward = httpRequest(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, timeout: 15_000 },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setHeader(name, value) {
      added = value === undefined ? undefined : { name, value };
    },
    hold(value) {
      held = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
