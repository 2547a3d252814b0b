// Discovery (OpenID Connect Discovery 1.0 §4) and the JWKS (RFC 7517 §5) served from the provider's own answers,
// rendered once per provider build. Both depend only on the configuration and the published keys, and a key change
// builds a new provider (plugin.ts), so running the provider's Koa stack for every request computes the same bytes
// again; on the two busiest endpoints that was most of the time per request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inject } from 'light-my-request';
import type Provider from 'oidc-provider';
import { ROUTES } from '../protocol.ts';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/** One rendered answer: the provider's headers (without per-connection ones) and body bytes. */
export interface Document {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}
export interface Documents {
  readonly discovery: Document;
  readonly jwks: Document;
}

// Set per response or per connection by Node when the answer is sent.
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Renders both documents with the provider's callback, as the edge hands it a request (plugin.ts `hand`). */
export async function renderDocuments(callback: ReturnType<Provider['callback']>, issuer: string): Promise<Documents> {
  const { host, protocol } = new URL(issuer);
  const render = async (url: string, extra: Record<string, string> = {}): Promise<Document> => {
    const res = await inject(callback as never, {
      method: 'GET',
      url,
      headers: { host, 'x-forwarded-proto': protocol.slice(0, -1) },
    });
    if (res.statusCode !== 200) throw new Error(`the provider answered GET ${url} with ${res.statusCode}`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers))
      if (!TRANSPORT_HEADERS.has(name) && value !== undefined) headers[name] = String(value);
    return { headers: { ...headers, ...extra }, body: res.rawPayload };
  };
  return {
    discovery: await render(DISCOVERY_PATH),
    // May be cached briefly: new keys are published before they sign.
    jwks: await render(ROUTES.jwks, { 'cache-control': 'max-age=300, must-revalidate' }),
  };
}

/** GET (and Fastify's HEAD) of both documents; OPTIONS preflights stay with the provider. */
export function serveDocuments(scope: FastifyInstance, current: () => Documents): void {
  const serve = (pick: (documents: Documents) => Document) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { headers, body } = pick(current());
    // The provider's open CORS policy for these GETs (oidc-provider lib/shared/cors.js): the caller's Origin, else *.
    return reply
      .headers(headers)
      .header('access-control-allow-origin', request.headers.origin || '*')
      .send(body);
  };
  scope.get(
    DISCOVERY_PATH,
    serve((d) => d.discovery),
  );
  scope.get(
    ROUTES.jwks,
    serve((d) => d.jwks),
  );
}
