// Linking an existing account to a JWT IdP identity nobody has linked yet (issue 15 §5): the identity waits in a
// sealed cookie scoped to the interaction's pages, and the password sign-in of the same interaction links it. The
// cookie is encrypted with the master key, so neither its reader nor its holder can change what gets linked.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { linkIdentity, type ExternalIdentity } from '../idps/links.ts';
import { findUserById } from '../users/queries.ts';
import type { LoginDeps } from './interaction.ts';

const PENDING_COOKIE = 'gatehouse_idp_link';

const cookiePath = (uid: string) => `/ui/login/${encodeURIComponent(uid)}`;

export function rememberPendingLink(deps: LoginDeps, reply: FastifyReply, uid: string, identity: ExternalIdentity) {
  reply.setCookie(PENDING_COOKIE, deps.secrets.encrypt(JSON.stringify({ uid, ...identity })), {
    path: cookiePath(uid),
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.issuer.startsWith('https:'),
    maxAge: deps.config.ttl.interaction,
  });
}

function pendingLink(deps: LoginDeps, request: FastifyRequest, uid: string): ExternalIdentity | undefined {
  const sealed = request.cookies[PENDING_COOKIE];
  if (!sealed || sealed.length > 4096) return undefined;
  try {
    const value = JSON.parse(deps.secrets.decrypt(sealed)) as ExternalIdentity & { uid: string };
    return value.uid === uid ? value : undefined;
  } catch {
    return undefined;
  }
}

/** After a password sign-in: links the identity this interaction waits to link, if any, to `userId`. A user who
 *  already has an identity of that IdP, or an identity someone linked meanwhile, keeps what is there. */
export async function completePendingLink(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  userId: string,
): Promise<void> {
  const identity = pendingLink(deps, request, uid);
  if (!identity) return;
  reply.clearCookie(PENDING_COOKIE, { path: cookiePath(uid) });
  const user = await findUserById(deps.db, userId);
  if (!user) return;
  try {
    await deps.db.tx((tx) => linkIdentity(tx, userId, user.org_id, identity));
    request.log.info({ userId, idpId: identity.idpId }, 'jwt idp: identity linked');
  } catch (error) {
    request.log.warn({ userId, idpId: identity.idpId, err: (error as Error).message }, 'jwt idp: link refused');
  }
}
