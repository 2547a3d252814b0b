// Who uses the console: a person of the instance signed in through the normal login pages, held in a session of
// the console's own, scoped to /ui/console, with an idle and an absolute timeout (administration warrants shorter
// limits than the login session's; ASVS §7.3).
// The session lives on the server (users/console-sessions.ts; the cookie holds only its random id), so that "Sign
// out", a password change or reset, and locking, deactivating or removing the user end it on every node, a copy
// of the cookie included. Without one the browser goes through an authorization request of
// the console's built-in client (oidc/account-client.ts; code flow with PKCE and a state bound to this browser by a
// sealed cookie), so the normal login pages sign it in, and the callback brings it back to the page it asked for.
// The callback takes the user of the OP session the login created, as the account page does (account/session.ts),
// and ties the console session to that OP session: signing out of it anywhere (the account page, an app's
// RP-initiated logout) ends the console session too. The code itself is never redeemed and expires.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageDeps } from '../web/page-deps.ts';
import { CONSOLE_CALLBACK_PATH, CONSOLE_CLIENT_ID } from '../oidc/account-client.ts';
import { ROUTES } from '../oidc/protocol.ts';
import {
  type ConsoleSessionLimits,
  createConsoleSession,
  deleteConsoleSession,
  findConsoleSessionUser,
} from '../users/console-sessions.ts';
import { isActive, type UserRow } from '../users/lookup.ts';

export const CONSOLE_PATH = '/ui/console';
const SESSION_COOKIE = 'gatehouse_console';
const SIGN_IN_COOKIE = 'gatehouse_console_sign_in';
const SIGN_IN_SECONDS = 600;
/** The absolute limit of a console session; the idle limit is GATEHOUSE_CONSOLE_IDLE_TTL. */
const ABSOLUTE_SECONDS = 12 * 3600;
/** A session's idle clock is moved on (a write) at most this often. */
const REFRESH_SECONDS = 60;

const now = () => Math.floor(Date.now() / 1000);

const limits = (deps: PageDeps): ConsoleSessionLimits => ({
  idleSeconds: deps.config.ttl.consoleIdle,
  absoluteSeconds: ABSOLUTE_SECONDS,
  refreshSeconds: REFRESH_SECONDS,
});

function cookieOptions(deps: PageDeps, maxAge: number) {
  return {
    path: CONSOLE_PATH,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.config.issuer.startsWith('https:'),
    maxAge,
  };
}

function unseal<T>(deps: PageDeps, value: string | undefined): T | undefined {
  if (!value) return undefined;
  try {
    return JSON.parse(deps.secrets.decrypt(value)) as T;
  } catch {
    return undefined;
  }
}

/** The session's id as the browser presents it; a value of another shape is no session (nothing is looked up). */
function presentedId(request: FastifyRequest): string | undefined {
  const id = request.cookies[SESSION_COOKIE];
  return id && /^[\w-]{43}$/.test(id) ? id : undefined;
}

/** The signed-in user, active, or undefined (no session, ended, timed out, or the user not active): one statement,
 *  which restarts the idle clock at most once a minute; the cookie's lifetime is renewed with it. */
export async function consoleUser(
  deps: PageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<UserRow | undefined> {
  const id = presentedId(request);
  const found = id && (await findConsoleSessionUser(deps.db, id, limits(deps)));
  if (!found || !isActive(found.user)) return undefined;
  if (found.refreshed) setCookie(deps, reply, id);
  return found.user;
}

function setCookie(deps: PageDeps, reply: FastifyReply, id: string): void {
  reply.setCookie(SESSION_COOKIE, id, cookieOptions(deps, deps.config.ttl.consoleIdle));
}

/** "Sign out": this browser's session ends on the server, so a copy of its cookie is refused too. */
export async function endConsoleSession(deps: PageDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = presentedId(request);
  if (id) await deleteConsoleSession(deps.db, id);
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
export function signInRedirect(deps: PageDeps, request: FastifyRequest, reply: FastifyReply): FastifyReply {
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
  deps: PageDeps,
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
  // a new id for every sign-in (no fixation); the browser's previous session, if any, is not left behind
  const previous = presentedId(request);
  if (previous) await deleteConsoleSession(deps.db, previous);
  const signedIn = { userId: session.accountId, opSessionUid: session.uid };
  setCookie(deps, reply, await createConsoleSession(deps.db, signedIn, limits(deps)));
  return consoleReturnPath(signIn.returnTo);
}

/** RP-initiated logout of the browser's login session, back to the home page. */
export function signOutUrl(issuer: string): string {
  const query = new URLSearchParams({ client_id: CONSOLE_CLIENT_ID, post_logout_redirect_uri: `${issuer}/` });
  return `${ROUTES.end_session}?${query}`;
}
