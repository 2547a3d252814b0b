// "Change required" (issue 16): a user whose password was set by an administrator (SetHumanPassword without
// noChangeRequired) or imported with passwordChangeRequired chooses a new one right after the password was
// accepted, before the authorization completes. The page carries a ticket sealed with the master key that binds
// the verified user to this interaction for its lifetime, so the new password needs no second check of the old.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storeNewPassword } from '../passwords/service.ts';
import { checkPasswordPolicy } from '../passwords/current.ts';
import { HASHING_RETRY_AFTER, type HashSlot } from '../users/passwords.ts';
import { describeAccounts } from '../users/accounts.ts';
import {
  formField,
  interactionPageOf,
  loadPostedInteraction,
  type InteractionPage,
  type LoginDeps,
} from './interaction.ts';
import { signedIn } from './signed-in.ts';
import { policyRefusal } from './password-rules.ts';
import { ErrorPage } from '../views/messages.ts';
import { PasswordChangePage } from '../views/login.ts';

interface Ticket {
  uid: string;
  userId: string;
  exp: number;
}

function sealTicket(deps: LoginDeps, uid: string, userId: string): string {
  const exp = Math.floor(Date.now() / 1000) + deps.config.ttl.interaction;
  return deps.secrets.encrypt(JSON.stringify({ purpose: 'password-change', uid, userId, exp }));
}

function openTicket(deps: LoginDeps, uid: string, sealed: string | undefined): string | undefined {
  if (!sealed || sealed.length > 1024) return undefined;
  try {
    const ticket = JSON.parse(deps.secrets.decrypt(sealed)) as Ticket & { purpose?: string };
    const valid = ticket.purpose === 'password-change' && ticket.uid === uid && ticket.exp > Date.now() / 1000;
    return valid ? ticket.userId : undefined;
  } catch {
    return undefined;
  }
}

/** A ticket that is not this interaction's, or too old: the sign-in starts over. */
function expired(deps: LoginDeps, i: InteractionPage, reply: FastifyReply): FastifyReply {
  const t = deps.pages.texts(i.locale);
  const page = { title: t.errorTitle, message: t.errorExpired, code: 'invalid_request' };
  return deps.pages.send(reply, deps.pages.render(400, i.locale, ErrorPage, 'errorTitle', page));
}

export async function showRequiredChange(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  userId: string,
  status = 200,
  messages: { error?: string; alert?: string } = {},
): Promise<FastifyReply> {
  const [account] = await describeAccounts(deps.db, [userId]);
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, PasswordChangePage, 'passwordChangeTitle', {
      action: `/ui/login/${encodeURIComponent(i.uid)}/password-change`,
      csrf: i.csrf,
      ticket: sealTicket(deps, i.uid, userId),
      loginName: account?.loginName ?? '',
      ...messages,
    }),
  );
}

export async function submitRequiredChange(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const slot = deps.hashing.tryAdmit(request.ip);
  if (!slot) {
    const page = interactionPageOf(deps, request);
    reply.header('retry-after', String(HASHING_RETRY_AFTER));
    const userId = openTicket(deps, page.uid, formField(request, 'ticket'));
    if (!userId) return expired(deps, page, reply);
    return showRequiredChange(deps, page, reply, userId, 503, { alert: deps.pages.texts(page.locale).errorBusy });
  }
  try {
    return await change(deps, request, reply, slot);
  } finally {
    slot.release();
  }
}

async function change(deps: LoginDeps, request: FastifyRequest, reply: FastifyReply, slot: HashSlot) {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const t = deps.pages.texts(interaction.locale);
  const userId = openTicket(deps, interaction.uid, formField(request, 'ticket'));
  if (!userId) return expired(deps, interaction, reply);
  const password = formField(request, 'newPassword') ?? '';
  try {
    await checkPasswordPolicy(deps.db, 'newPassword', password);
  } catch (error) {
    const refused = policyRefusal(t, error);
    if (!refused) throw error;
    return showRequiredChange(deps, interaction, reply, userId, 400, { error: refused });
  }
  // no session of the user survives: whoever set or knew the old password is signed out everywhere
  await storeNewPassword(deps.db, { userId }, await slot.hash(password), { changeRequired: false, creator: userId });
  return signedIn(deps, request, reply, interaction, userId);
}
