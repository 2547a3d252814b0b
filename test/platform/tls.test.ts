import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import tls, { type TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// A throwaway self-signed certificate for 127.0.0.1.
function selfSignedCertificate(): { certFile: string; keyFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; alpn: string | false | null; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { agent: new https.Agent({ ca, ALPNProtocols: ['http/1.1'] }) }, (res) => {
      const alpn = (res.socket as TLSSocket).alpnProtocol;
      let body = '';
      res.on('data', (d) => {
        body += String(d);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, alpn, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
  });
}

describe('TLS with ALPN', () => {
  let server: TestServer;
  let ca: Buffer;
  beforeAll(async () => {
    const { certFile, keyFile } = selfSignedCertificate();
    ca = readFileSync(certFile);
    server = await startTestServer({
      env: { GATEHOUSE_TLS_CERT_FILE: certFile, GATEHOUSE_TLS_KEY_FILE: keyFile, GATEHOUSE_REQUEST_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => server?.stop());

  it('serves HTTP/1.1 over TLS on the port', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await httpsGet(`${server.url}/healthz`, ca);
    expect(res).toMatchObject({ status: 200, alpn: 'http/1.1' });
  });

  it('serves gRPC over HTTP/2 and gRPC-Web over HTTP/1.1 on the same port', async () => {
    const transports = [
      createGrpcTransport({ baseUrl: server.url, nodeOptions: { ca } }),
      createGrpcWebTransport({ baseUrl: server.url, httpVersion: '1.1', nodeOptions: { ca } }),
    ];
    for (const transport of transports) {
      const error = await createClient(AdminService, transport)
        .getOrgByID({ id: '1' })
        .catch((e: unknown) => ConnectError.from(e));
      expect(error).toBeInstanceOf(ConnectError);
      // reached the management API's auth layer through the TLS connection
      expect((error as ConnectError).code).toBe(Code.Unauthenticated);
      expect((error as ConnectError).rawMessage).toBe('auth header missing (AUTH-7mr9s)');
    }
  });

  it('applies the request timeout and the HTTP/2 stream cap over TLS too', async () => {
    const { port } = new URL(server.url);
    // HTTP/1.1: a body that never completes is answered 408 and the connection closed
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca, ALPNProtocols: ['http/1.1'] });
    let received = '';
    socket.on('data', (d) => {
      received += String(d);
    });
    socket.on('error', () => {});
    socket.write(
      'POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
        'application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ng',
    );
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.destroy();
    expect(closed).toBe(true);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    // HTTP/2: the cap is advertised, and a stream whose body never comes is answered 408
    const session = http2.connect(server.url, { ca });
    session.on('error', () => {});
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': '/oauth/v2/token',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': '100',
        });
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', reject);
        stream.write('g');
        setTimeout(() => reject(new Error('no answer')), 5_000);
      });
      expect(status).toBe(408);
      expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
    } finally {
      session.destroy();
    }
  });

  it('refuses a cleartext connection', async () => {
    await expect(
      fetch(`${server.url.replace('https:', 'http:')}/healthz`, { signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow();
  });
});
