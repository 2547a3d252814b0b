// "Change required": a user whose password was set by an administrator (SetHumanPassword without
// noChangeRequired) or imported with passwordChangeRequired chooses a new one once the password and the second
// factor, if the user has one, were accepted (second-factor-flow.ts; ZITADEL asks in the same order), before the
// authorization completes: the temporary password alone changes nothing and ends no session.
// The page carries a ticket sealed with the master key that binds the verified user and the methods used to this
// interaction for its lifetime, so the new password needs no second check of the old.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storeNewPassword } from '../passwords/service.ts';
import { checkPasswordPolicy } from '../passwords/current.ts';
import { HashRefusal, type HashSlot } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { describeAccounts } from '../users/accounts.ts';
import { interactionPageOf, loadPostedInteraction, type InteractionPage, type LoginDeps } from './interaction.ts';
import { formField } from '../web/forms.ts';
import { signedIn } from './signed-in.ts';
import { passwordHelp, policyRefusal } from '../web/password-rules.ts';
import { getPasswordPolicy } from '../passwords/current.ts';
import { PasswordChangePage } from '../views/login.ts';
import { openTicket, sealTicket, ticketExpired } from '../web/ticket.ts';

const PURPOSE = 'password-change';

/** The user whose factors were all given, and the methods used (RFC 8176). */
interface Verified {
  userId: string;
  amr: string[];
}

/** The ticket's user; a ticket without the methods used is none (it was not issued after the factors). */
function openVerified(deps: LoginDeps, uid: string, sealed: string | undefined): Verified | undefined {
  const ticket = openTicket<Verified>(deps, PURPOSE, uid, sealed);
  return ticket && Array.isArray(ticket.amr) ? { userId: ticket.userId, amr: ticket.amr } : undefined;
}

export async function showRequiredChange(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  who: Verified,
  status = 200,
  messages: { error?: string; alert?: string } = {},
): Promise<FastifyReply> {
  const [[account], policy] = await Promise.all([describeAccounts(deps.db, [who.userId]), getPasswordPolicy(deps.db)]);
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, PasswordChangePage, 'passwordChangeTitle', {
      action: `/ui/login/${encodeURIComponent(i.uid)}/password-change`,
      csrf: i.csrf,
      ticket: sealTicket(deps, PURPOSE, i.uid, who),
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
    const who = openVerified(deps, page.uid, formField(request, 'ticket'));
    if (!who) return ticketExpired(deps, page, reply);
    return showRequiredChange(deps, page, reply, who, status, { alert });
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
  const who = openVerified(deps, interaction.uid, formField(request, 'ticket'));
  if (!who) return ticketExpired(deps, interaction, reply);
  const password = formField(request, 'newPassword') ?? '';
  try {
    await checkPasswordPolicy(deps.db, 'newPassword', password);
  } catch (error) {
    const refused = policyRefusal(t, error);
    if (!refused) throw error;
    return showRequiredChange(deps, interaction, reply, who, 400, { error: refused });
  }
  // no session of the user survives: whoever set or knew the old password is signed out everywhere; the verified
  // address hears of the change, so a takeover does not go unnoticed
  const { userId, amr } = who;
  await storeNewPassword(deps.db, { userId }, await slot.hash(password), {
    changeRequired: false,
    creator: userId,
    notify: deps.mailer,
  });
  return signedIn(deps, request, reply, interaction, userId, amr);
}
