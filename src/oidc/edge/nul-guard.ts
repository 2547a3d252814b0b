// U+0000 in any OIDC/OAuth parameter is refused before oidc-provider or the fast paths (which look clients up, store
// the authorization request in jsonb, ...) see it, for every endpoint in one place: the query, the path, a form body,
// the Basic credentials and the claims of JWTs passed as parameters (JWT-profile `assertion`, `client_assertion`,
// `id_token_hint`, `request`). platform/text.ts says why.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fieldWithNul, hasNul } from '../../platform/text.ts';
import { invalidClient, invalidRequest, sendOAuthError } from '../fast/oauth.ts';

/** Parameters that name or authenticate the client: refused as invalid_client (RFC 6749 §5.2), the rest as
 *  invalid_request. */
const CLIENT_PARAMS = new Set(['client_id', 'client_secret', 'client_assertion', 'assertion', 'authorization']);

/** How a browser-facing endpoint (authorize, end_session) shows the refusal: a page (400), not JSON. */
export type RefusalPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: { error: string; message: string },
) => Promise<FastifyReply>;

export function refuseNulCharacters(
  scope: FastifyInstance,
  browserRoutes: ReadonlySet<string>,
  page: RefusalPage,
): void {
  const refuse = (request: FastifyRequest, reply: FastifyReply, field: string) => {
    const description = `${field} must not contain NUL characters`;
    const error = CLIENT_PARAMS.has(field) ? invalidClient(description) : invalidRequest(description);
    request.log.info({ field }, 'oidc request refused: NUL character');
    if (browserRoutes.has(`${request.method} ${request.routeOptions.url}`))
      return page(request, reply, { error: error.error, message: description });
    return sendOAuthError(reply, error);
  };
  // onRequest: the provider's own routes are handed over (hijacked) in their route-level onRequest hook, after this.
  scope.addHook('onRequest', async (request, reply) => {
    const field =
      fieldWithNul(Object.entries(request.params as Record<string, string>)) ??
      fieldWithNul(Object.entries(request.query as Record<string, unknown>)) ??
      jwtWithNul(Object.entries(request.query as Record<string, unknown>)) ??
      basicCredentialsWithNul(request.headers.authorization);
    if (field) return refuse(request, reply, field);
  });
  // preValidation: form bodies the edge parsed (token, revocation, introspection, userinfo). The hot endpoints pay
  // one scan of the raw body: only a %00, a raw NUL or a JWT parameter makes it parse the form a second time.
  scope.addHook('preValidation', async (request, reply) => {
    if (typeof request.body !== 'string' || !(mayEncodeNul(request.body) || JWT_PARAM.test(request.body))) return;
    const form = [...new URLSearchParams(request.body)];
    const field = fieldWithNul(form) ?? jwtWithNul(form);
    if (field) return refuse(request, reply, field);
  });
}

/** In form-urlencoded text U+0000 is `%00` or the raw character (RFC 3986 §2.1; `+` is a space). */
const mayEncodeNul = (text: string) => text.includes('%00') || hasNul(text);
/** The parameters that carry JWTs whose claims Gatehouse reads before it checks a signature. */
const JWT_PARAMS = new Set(['assertion', 'client_assertion', 'id_token_hint', 'request']);
const JWT_PARAM = /(?:^|&)(?:assertion|client_assertion|id_token_hint|request)=/;

const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;
// A JSON text holds U+0000 as the escape \u0000 (not itself escaped by a preceding backslash), or raw.
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/i;

/** The parameter whose value is a JWT with U+0000 in its header or claims (the iss of an assertion names a
 *  client or a machine user and is looked up; signatures are checked only after that). */
function jwtWithNul(entries: Iterable<[string, unknown]>): string | undefined {
  for (const [name, value] of entries) {
    const parts = JWT_PARAMS.has(name) && typeof value === 'string' ? COMPACT_JWS.exec(value) : null;
    if (!parts) continue;
    for (const segment of [parts[1]!, parts[2]!]) {
      const json = Buffer.from(segment, 'base64url').toString('utf8');
      if (hasNul(json) || JSON_NUL.test(json)) return name;
    }
  }
  return undefined;
}

/** Basic credentials are form-urlencoded inside base64 (RFC 6749 §2.3.1): U+0000 can hide in either layer. */
function basicCredentialsWithNul(authorization: string | undefined): string | undefined {
  const [scheme, encoded] = authorization?.split(' ') ?? [];
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  if (!bytes.includes(0) && !bytes.includes('%00')) return undefined;
  const decoded = bytes.toString('utf8');
  let plain = decoded;
  try {
    plain = decodeURIComponent(decoded);
  } catch {
    // malformed encoding: the endpoint refuses it as invalid_request on its own
  }
  return hasNul(decoded) || hasNul(plain) ? 'authorization' : undefined;
}
