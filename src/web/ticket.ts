// Tickets of the steps after the password ("change required", second factors): sealed with the
// master key, they bind what the server verified (the user, the methods used so far) to one interaction for its
// lifetime, so a later step needs no storage of its own and cannot be entered from another interaction. The
// account page's authenticator setup binds its secret to the OP session the same way (`uid` is then the session's).
import type { FastifyReply } from 'fastify';
import type { Locale } from '../views/i18n.ts';
import type { PageDeps } from './page-deps.ts';
import { ErrorPage } from '../views/messages.ts';

const MAX_SEALED = 4096;

export function sealTicket(deps: PageDeps, purpose: string, uid: string, body: object): string {
  const exp = Math.floor(Date.now() / 1000) + deps.config.ttl.interaction;
  return deps.secrets.encrypt(JSON.stringify({ ...body, purpose, uid, exp }));
}

/** The ticket's body, or undefined when it is not this interaction's ticket for this purpose, or too old. */
export function openTicket<T extends object>(
  deps: PageDeps,
  purpose: string,
  uid: string,
  sealed: string | undefined,
): T | undefined {
  if (!sealed || sealed.length > MAX_SEALED) return undefined;
  try {
    const ticket = JSON.parse(deps.secrets.decrypt(sealed)) as T & { purpose?: string; uid?: string; exp?: number };
    const valid = ticket.purpose === purpose && ticket.uid === uid && Number(ticket.exp) > Date.now() / 1000;
    return valid ? ticket : undefined;
  } catch {
    return undefined;
  }
}

/** A ticket that is not this interaction's, or too old: the sign-in starts over. */
export function ticketExpired(deps: PageDeps, i: { locale: Locale }, reply: FastifyReply): FastifyReply {
  const t = deps.pages.texts(i.locale);
  const page = { title: t.errorTitle, message: t.errorExpired, code: 'invalid_request' };
  return deps.pages.send(reply, deps.pages.render(400, i.locale, ErrorPage, 'errorTitle', page));
}
