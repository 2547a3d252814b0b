// The authorization request's size cap, the same on every transport. HTTP/1.1 refused a long URL only at node's header
// limit (16 KiB), HTTP/2 not at all: a 48 KB `state` was accepted and stored with its interaction. Counted on the query
// as it arrives, so it bounds each parameter and all of them together.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderPages } from '../pages.ts';

/** An onRequest hook for the authorization endpoint: over the cap it answers the error page (400) before the
 *  provider sees, and stores, anything. The error page and not an error redirect: the oversized values would
 *  otherwise travel on to the client (`state` is echoed). */
export function authorizationSizeCap(maxBytes: number, pages: ProviderPages) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const url = request.raw.url ?? '';
    const query = url.slice(url.indexOf('?') + 1 || url.length);
    if (Buffer.byteLength(query) <= maxBytes) return undefined;
    request.log.info({ bytes: Buffer.byteLength(query), maxBytes }, 'authorization request over the size cap');
    return pages.refusal(request, reply, { error: 'invalid_request', message: '' }); // the generic message
  };
}
