// "Change required" (issue 16): a user whose password was set by an administrator (SetHumanPassword without
// noChangeRequired) or imported with passwordChangeRequired chooses a new one right after the password was
// accepted, before the authorization completes. The page carries a ticket sealed with the master key that binds
// the verified user to this interaction for its lifetime, so the new password needs no second check of the old.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storeNewPassword } from '../passwords/service.ts';
import { checkPasswordPolicy } from '../passwords/current.ts';
import { HashRefusal, type HashSlot } from '../users/passwords.ts';
import { answerHashRefusal } from './hash-refusal.ts';
import { describeAccounts } from '../users/accounts.ts';
import {
  formField,
  interactionPageOf,
  loadPostedInteraction,
  type InteractionPage,
  type LoginDeps,
} from './interaction.ts';
import { afterFirstFactorOf } from './second-factor-flow.ts';
import { passwordHelp, policyRefusal } from './password-rules.ts';
import { getPasswordPolicy } from '../passwords/current.ts';
import { PasswordChangePage } from '../views/login.ts';
import { openTicket, sealTicket, ticketExpired } from './ticket.ts';

const PURPOSE = 'password-change';

const openUser = (deps: LoginDeps, uid: string, sealed: string | undefined) =>
  openTicket<{ userId: string }>(deps, PURPOSE, uid, sealed)?.userId;

export async function showRequiredChange(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  userId: string,
  status = 200,
  messages: { error?: string; alert?: string } = {},
): Promise<FastifyReply> {
  const [[account], policy] = await Promise.all([describeAccounts(deps.db, [userId]), getPasswordPolicy(deps.db)]);
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, PasswordChangePage, 'passwordChangeTitle', {
      action: `/ui/login/${encodeURIComponent(i.uid)}/password-change`,
      csrf: i.csrf,
      ticket: sealTicket(deps, PURPOSE, i.uid, { userId }),
      loginName: account?.loginName ?? '',
      help: passwordHelp(deps.pages.texts(i.locale), policy),
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
  if (slot instanceof HashRefusal) {
    const page = interactionPageOf(deps, request);
    const { status, alert } = answerHashRefusal(reply, slot, deps.pages.texts(page.locale));
    const userId = openUser(deps, page.uid, formField(request, 'ticket'));
    if (!userId) return ticketExpired(deps, page, reply);
    return showRequiredChange(deps, page, reply, userId, status, { alert });
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
  const userId = openUser(deps, interaction.uid, formField(request, 'ticket'));
  if (!userId) return ticketExpired(deps, interaction, reply);
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
  return afterFirstFactorOf(deps, request, reply, interaction, userId);
}
