// Who uses the account page: the user of the browser's OP session, the one the login pages create.
// Without one the browser is sent through an authorization request of the account page's own client
// (oidc/account-client.ts), and the callback brings it back here, signed in.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionProvider } from '../web/page-deps.ts';
import { ACCOUNT_CALLBACK_PATH, ACCOUNT_CLIENT_ID } from '../oidc/account-client.ts';
import { ROUTES } from '../oidc/protocol.ts';

export interface AccountSession {
  userId: string;
  /** The session's uid: a password change on this page keeps this session and ends the others. */
  uid: string;
  /** When the session's user last signed in (seconds since the epoch): a fresh sign-in confirms a change
   *  (account/confirm.ts). */
  authTime: number | undefined;
}

export async function accountSession(
  oidc: InteractionProvider,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<AccountSession | undefined> {
  const provider = oidc.provider();
  const session = await provider.Session.get(provider.createContext(request.raw, reply.raw));
  return session.accountId ? { userId: session.accountId, uid: session.uid, authTime: session.authTime() } : undefined;
}

/** To the authorization endpoint. The code that comes back is never redeemed (it expires): the login has already
 *  created the session this page reads. PKCE is sent because the client is public (RFC 9700 §2.1.1). `again`
 *  asks for a new sign-in even within a session (prompt=login, OpenID Connect Core §3.1.2.1): the re-authentication
 *  that confirms a change (account/confirm.ts). */
export function signInRedirect(issuer: string, reply: FastifyReply, again = false): FastifyReply {
  const url = new URL(ROUTES.authorization, issuer);
  url.search = new URLSearchParams({
    client_id: ACCOUNT_CLIENT_ID,
    redirect_uri: `${issuer}${ACCOUNT_CALLBACK_PATH}`,
    response_type: 'code',
    scope: 'openid',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
    ...(again ? { prompt: 'login' } : {}),
  }).toString();
  return reply.redirect(url.toString(), 303);
}

/** RP-initiated logout back to the home page. */
export const signOutUrl = (issuer: string) =>
  `${ROUTES.end_session}?${new URLSearchParams({
    client_id: ACCOUNT_CLIENT_ID,
    post_logout_redirect_uri: `${issuer}/`,
  })}`;
