// Who uses the console (issue 22): its own session cookie, scoped to /ui/console and sealed with the instance's
// encryption key, with an idle and an absolute timeout. Without one the browser goes through an authorization
// request of the console's built-in client (oidc/account-client.ts; code flow with PKCE and a state bound to this
// browser by a sealed cookie), so the normal login pages sign it in, and the callback brings it back to the page it
// asked for. The callback takes the user of the OP session the login created, as the account page does
// (account/session.ts); the code itself is never redeemed and expires.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LoginDeps } from '../login/interaction.ts';
import { CONSOLE_CALLBACK_PATH, CONSOLE_CLIENT_ID } from '../oidc/account-client.ts';
import { ROUTES } from '../oidc/protocol.ts';

export const CONSOLE_PATH = '/ui/console';
const SESSION_COOKIE = 'gatehouse_console';
const SIGN_IN_COOKIE = 'gatehouse_console_sign_in';
const SIGN_IN_SECONDS = 600;
/** The absolute limit of a console session; the idle limit is GATEHOUSE_CONSOLE_IDLE_TTL. */
const ABSOLUTE_SECONDS = 12 * 3600;
/** A session is sealed again (its idle clock restarted) at most this often. */
const REFRESH_SECONDS = 60;

interface SealedSession {
  userId: string;
  issuedAt: number;
  seenAt: number;
}

const now = () => Math.floor(Date.now() / 1000);

function cookieOptions(deps: LoginDeps, maxAge: number) {
  return {
    path: CONSOLE_PATH,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.config.issuer.startsWith('https:'),
    maxAge,
  };
}

function unseal<T>(deps: LoginDeps, value: string | undefined): T | undefined {
  if (!value) return undefined;
  try {
    return JSON.parse(deps.secrets.decrypt(value)) as T;
  } catch {
    return undefined;
  }
}

/** The signed-in user's id, or undefined (none, tampered, timed out). Restarts the idle clock. */
export function consoleUserId(deps: LoginDeps, request: FastifyRequest, reply: FastifyReply): string | undefined {
  const session = unseal<SealedSession>(deps, request.cookies[SESSION_COOKIE]);
  const t = now();
  const idle = deps.config.ttl.consoleIdle;
  if (!session || t - session.seenAt > idle || t - session.issuedAt > ABSOLUTE_SECONDS) return undefined;
  if (t - session.seenAt > REFRESH_SECONDS) setSession(deps, reply, { ...session, seenAt: t });
  return session.userId;
}

function setSession(deps: LoginDeps, reply: FastifyReply, session: SealedSession): void {
  const sealed = deps.secrets.encrypt(JSON.stringify(session));
  reply.setCookie(SESSION_COOKIE, sealed, cookieOptions(deps, deps.config.ttl.consoleIdle));
}

export function endConsoleSession(deps: LoginDeps, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(deps, 0));
}

interface SignIn {
  state: string;
  returnTo: string;
  expiresAt: number;
}

/** Only a console path is a place to come back to (no open redirect). */
export function consoleReturnPath(url: string): string {
  return /^\/ui\/console(\/[\w\-/.~%]*)?(\?[^#\s]*)?$/.test(url) && !url.includes('..') ? url : CONSOLE_PATH;
}

/** To the authorization endpoint, remembering the page to come back to. */
export function signInRedirect(deps: LoginDeps, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const state = randomBytes(24).toString('base64url');
  const signIn: SignIn = { state, returnTo: consoleReturnPath(request.url), expiresAt: now() + SIGN_IN_SECONDS };
  reply.setCookie(SIGN_IN_COOKIE, deps.secrets.encrypt(JSON.stringify(signIn)), cookieOptions(deps, SIGN_IN_SECONDS));
  const url = new URL(ROUTES.authorization, deps.config.issuer);
  url.search = new URLSearchParams({
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: `${deps.config.issuer}${CONSOLE_CALLBACK_PATH}`,
    response_type: 'code',
    scope: 'openid',
    state,
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return reply.redirect(url.toString(), 303);
}

/** The callback: the state must be the one this browser was sent with; then the login's user has a console
 *  session. Returns the page to go back to, or undefined when the sign-in did not happen here. */
export async function finishSignIn(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<string | undefined> {
  const signIn = unseal<SignIn>(deps, request.cookies[SIGN_IN_COOKIE]);
  reply.clearCookie(SIGN_IN_COOKIE, cookieOptions(deps, 0));
  const query = request.query as Record<string, unknown>;
  if (!signIn || signIn.expiresAt < now() || query.state !== signIn.state || typeof query.code !== 'string')
    return undefined;
  const provider = deps.oidc.provider();
  const session = await provider.Session.get(provider.createContext(request.raw, reply.raw));
  if (!session.accountId) return undefined;
  const t = now();
  setSession(deps, reply, { userId: session.accountId, issuedAt: t, seenAt: t });
  return consoleReturnPath(signIn.returnTo);
}

/** RP-initiated logout of the browser's login session, back to the home page. */
export function signOutUrl(issuer: string): string {
  const query = new URLSearchParams({ client_id: CONSOLE_CLIENT_ID, post_logout_redirect_uri: `${issuer}/` });
  return `${ROUTES.end_session}?${query}`;
}
