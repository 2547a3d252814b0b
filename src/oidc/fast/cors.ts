// oidc-provider's client-based CORS (lib/shared/cors.js) for the endpoints Gatehouse serves itself: any origin may ask,
// but a request that carries an Origin is answered only when the client admits that origin (provider.ts
// clientBasedCORS: the origins of its registered redirect URIs). Follows oidc-provider 9.x (../protocol.ts
// OIDC_PROVIDER_MAJOR).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest } from './oauth.ts';

export function allowOrigin(request: FastifyRequest, reply: FastifyReply, exposeHeaders?: string): void {
  reply.header('vary', 'Origin');
  reply.header('access-control-allow-origin', request.headers.origin ?? '*');
  if (exposeHeaders) reply.header('access-control-expose-headers', exposeHeaders);
}

/** Refuses a cross-origin request from an origin the client does not admit. */
export function checkClientOrigin(
  request: FastifyRequest,
  reply: FastifyReply,
  clientId: string,
  admitted: (origin: string) => boolean,
): void {
  const origin = request.headers.origin;
  if (origin === undefined || admitted(origin)) return;
  reply.removeHeader('access-control-allow-origin');
  throw invalidRequest(`origin ${origin} not allowed for client: ${clientId}`);
}
