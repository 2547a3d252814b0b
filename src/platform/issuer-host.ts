// A browser that opens the pages under another name of this server (http://127.0.0.1:8080 while the issuer is
// http://localhost:8080) gets its cookies on that name, and loses them where a sign-in ends: on the issuer's host.
// Such a page request is sent to the same path on the issuer's origin before anything is set. The target comes from the
// configured issuer only, never from the request's Host (an open redirect); the OIDC and API endpoints and the health
// probes are never redirected: clients may call them by any name, and their answers never depend on it.
import type { FastifyInstance, FastifyRequest } from 'fastify';

// A request relayed by a proxy shows the proxy's upstream name in Host, not the browser's: sending the browser to the
// issuer (where it already is) would loop, so the names behind a proxy are the proxy's to redirect.
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'via'];

export function redirectPagesToIssuer(
  app: FastifyInstance,
  /** under: the pages' path prefix; the target is the issuer's origin followed by the request's path and query. */
  options: { issuer: string; tls: boolean; under: string },
): void {
  const issuer = new URL(options.issuer);
  const [under, below, query] = [options.under, `${options.under}/`, `${options.under}?`];
  const isUnder = (url: string) => url === under || url.startsWith(below) || url.startsWith(query);
  // A listener whose scheme is not the issuer's is behind a proxy that terminates TLS, and may see any Host.
  if (issuer.protocol !== (options.tls ? 'https:' : 'http:')) return;
  const elsewhere = (request: FastifyRequest): boolean => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !isUnder(request.url)) return false;
    if (PROXY_HEADERS.some((name) => request.headers[name] !== undefined)) return false;
    const host = URL.parse(`${issuer.protocol}//${request.host}`)?.host;
    return host !== undefined && host !== issuer.host;
  };
  app.addHook('onRequest', (request, reply, done) => {
    if (!elsewhere(request)) return done();
    // 302: the browser follows with a GET, and caches nothing (the issuer may be configured otherwise tomorrow)
    reply.redirect(`${issuer.origin}${request.url}`, 302);
  });
}
