// What the endpoints Gatehouse serves itself (introspection, userinfo, machine grants) share with oidc-provider's:
// form parsing with the same rules (RFC 6749 §3.1: no repeated parameters) and errors in the same shape. Follows
// oidc-provider 9.x (lib/shared/reject_dupes.js, lib/shared/error_handler.js; ../protocol.ts OIDC_PROVIDER_MAJOR).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** An OAuth error response: RFC 6749 §5.2 body, the status, and for 401s the WWW-Authenticate challenge. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  readonly challenge: string | undefined;

  constructor(status: number, error: string, description: string, challenge?: string) {
    super(description);
    this.status = status;
    this.error = error;
    this.challenge = challenge;
  }
}

export const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);
export const invalidClient = (description = 'client authentication failed') =>
  new OAuthError(401, 'invalid_client', description);

/** Form bodies of the OAuth endpoints: generous for assertions and scopes, small enough to refuse abuse early. */
const FORM_BODY_LIMIT = 56 * 1024;

/** Makes the scope's routes receive form bodies as text, for readForm (or for handing them on to the provider). */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );
}

/** The form body of a POST, with each parameter at most once. */
export function readForm(request: FastifyRequest): URLSearchParams {
  if (
    typeof request.body !== 'string' ||
    !request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')
  ) {
    throw invalidRequest('only application/x-www-form-urlencoded content-type bodies are supported');
  }
  const form = new URLSearchParams(request.body);
  const repeated = repeatedParam(form);
  if (repeated !== undefined) throw invalidRequest(`'${repeated}' parameter must not be provided twice`);
  return form;
}

/** The first parameter a form carries more than once (RFC 6749 §3.1 forbids it), if any. */
export function repeatedParam(form: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

export function requireParam(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw invalidRequest(`missing required parameter '${name}'`);
  return value;
}

/** Sends an OAuthError like oidc-provider does; anything else is the app's error handler's (503 on outages). */
export function sendOAuthError(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof OAuthError)) throw error;
  if (error.challenge) reply.header('www-authenticate', error.challenge);
  return reply.code(error.status).send({ error: error.error, error_description: error.message });
}

/** Responses that carry tokens or token metadata are never cached (RFC 6749 §5.1). */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
