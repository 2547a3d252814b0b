// A relying party for the login tests: a callback page on loopback and openid-client 6 for discovery, the
// authorization URL with PKCE and the code exchange; and a single-page app's origin that serves oidc-client-ts.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';

export interface CallbackServer {
  url: string;
  close(): Promise<void>;
}

/** Answers every request with a small page, so the browser has somewhere to land. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Relying party</title><h1 id="rp">Back at the application</h1>');
  });
  return listenOnLoopback(server);
}

async function listenOnLoopback(server: Server): Promise<CallbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** oidc-client-ts's browser build (global `oidc`), the library ZITADEL's @zitadel/react wraps. */
const OIDC_CLIENT_TS = new URL('../../node_modules/oidc-client-ts/dist/browser/oidc-client-ts.js', import.meta.url);

/** Another loopback origin for a single-page app: every path is a page that loads oidc-client-ts from this origin
 *  (no third-party host); the test drives the library through the page. */
export async function startSinglePageApp(): Promise<CallbackServer> {
  const library = readFileSync(OIDC_CLIENT_TS);
  const server = createServer((req, res) => {
    if (req.url === '/oidc-client-ts.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(library);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Single-page app</title><script src="/oidc-client-ts.js"></script><h1>SPA</h1>');
  });
  return listenOnLoopback(server);
}

export interface AuthorizationStart {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export class RelyingParty {
  readonly config: oidc.Configuration;
  readonly redirectUri: string;

  private constructor(config: oidc.Configuration, redirectUri: string) {
    this.config = config;
    this.redirectUri = redirectUri;
  }

  /** A public client (none + PKCE S256, RFC 7636) registered for `redirectUri`. */
  static async discover(issuer: string, clientId: string, redirectUri: string): Promise<RelyingParty> {
    const config = await oidc.discovery(new URL(issuer), clientId, { redirect_uris: [redirectUri] }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    return new RelyingParty(config, redirectUri);
  }

  async start(params: Record<string, string> = {}): Promise<AuthorizationStart> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(this.config, {
      redirect_uri: this.redirectUri,
      scope: 'openid profile email',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...params,
    });
    return { url, verifier, state, nonce };
  }

  /** Redeems the code of the callback URL the browser landed on; returns the ID token and its claims. */
  async finish(callbackUrl: string, start: AuthorizationStart): Promise<{ claims: oidc.IDToken; idToken: string }> {
    const tokens = await oidc.authorizationCodeGrant(this.config, new URL(callbackUrl), {
      pkceCodeVerifier: start.verifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
      idTokenExpected: true,
    });
    return { claims: tokens.claims()!, idToken: tokens.id_token! };
  }

  endSessionUrl(params: Record<string, string>): URL {
    return oidc.buildEndSessionUrl(this.config, params);
  }
}
