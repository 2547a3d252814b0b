// Linking an existing account to a JWT IdP identity nobody has linked yet: the identity waits in a
// sealed cookie scoped to the interaction's pages. A first factor of the interaction (the password, a passkey)
// names the user in it; the link is written only when that user's sign-in has completed, second factor and
// sign-in checks included (NIST SP 800-63B §6.1.2.1): the password alone makes no lasting
// second way in. The cookie is encrypted with the master key, so neither its reader nor its holder can change what
// gets linked, or to whom.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { getScoped, scopeKey, setScoped } from '../platform/request-scope.ts';
import { linkIdentity, type ExternalIdentity } from '../idps/links.ts';
import { findUserById } from '../users/queries.ts';
import type { LoginDeps } from './interaction.ts';

const PENDING_COOKIE = 'gatehouse_idp_link';

const cookiePath = (uid: string) => `/ui/login/${encodeURIComponent(uid)}`;

export function rememberPendingLink(deps: LoginDeps, reply: FastifyReply, uid: string, identity: ExternalIdentity) {
  sealPending(deps, reply, { uid, ...identity });
}

type PendingLink = ExternalIdentity & { uid: string; userId?: string };

/** The link a first factor armed in this request: its cookie reaches the browser only with the answer, and a
 *  sign-in without a second factor completes in the same request. */
const ARMED_LINK = scopeKey<PendingLink>('login:armed-idp-link');

function sealPending(deps: LoginDeps, reply: FastifyReply, pending: PendingLink) {
  reply.setCookie(PENDING_COOKIE, deps.secrets.encrypt(JSON.stringify(pending)), {
    path: cookiePath(pending.uid),
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.issuer.startsWith('https:'),
    maxAge: deps.config.ttl.interaction,
  });
}

function pendingLink(deps: LoginDeps, request: FastifyRequest, uid: string): PendingLink | undefined {
  const armed = getScoped(ARMED_LINK)?.value;
  if (armed) return armed.uid === uid ? armed : undefined;
  const sealed = request.cookies[PENDING_COOKIE];
  if (!sealed || sealed.length > 4096) return undefined;
  try {
    const value = JSON.parse(deps.secrets.decrypt(sealed)) as PendingLink;
    return value.uid === uid ? value : undefined;
  } catch {
    return undefined;
  }
}

/** After a first factor: the identity this interaction waits to link, if any, is for `userId` once the sign-in
 *  completes. Nothing is written. */
export function armPendingLink(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  userId: string,
) {
  const pending = pendingLink(deps, request, uid);
  if (!pending) return;
  const armed = { ...pending, userId };
  setScoped(ARMED_LINK, armed);
  sealPending(deps, reply, armed);
}

/** At the end of a completed sign-in of `userId` (signed-in.ts): links the identity a first factor of this user
 *  armed, if any. A user who already has an identity of that IdP, or an identity someone linked meanwhile, keeps
 *  what is there. */
export async function completePendingLink(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  userId: string,
): Promise<void> {
  const pending = pendingLink(deps, request, uid);
  if (!pending) return;
  reply.clearCookie(PENDING_COOKIE, { path: cookiePath(uid) });
  if (pending.userId !== userId) return;
  const { uid: _uid, userId: _userId, ...identity } = pending;
  const user = await findUserById(deps.db, userId);
  if (!user) return;
  try {
    await deps.db.tx((tx) => linkIdentity(tx, userId, user.org_id, identity));
    request.log.info({ userId, idpId: identity.idpId }, 'jwt idp: identity linked');
  } catch (error) {
    request.log.warn({ userId, idpId: identity.idpId, err: (error as Error).message }, 'jwt idp: link refused');
  }
}
