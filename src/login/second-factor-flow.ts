// The second-factor step. After the password, a user who has a second factor is always asked for one,
// whatever the policy; with the login policy's forceMfa a user without one enrolls TOTP (and receives recovery
// codes) before the authorization completes. The kinds come from second-factors/registry.ts; each page carries a
// ticket (ticket.ts) naming the user, the methods used so far and the kind asked for, so the steps store nothing. A
// password change the user owes (password-change-flow.ts) comes after the second factor, as in ZITADEL: a temporary
// password alone changes nothing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FactorKind } from '../second-factors/kind.ts';
import { kindsOf } from '../second-factors/registry.ts';
import { recoveryKind } from '../second-factors/recovery-kind.ts';
import { enrollOtp, otpUrl } from '../factors/otp.ts';
import { newTotpSecret } from '../factors/totp.ts';
import { qrPath } from '../factors/qr.ts';
import { getLoginPolicy } from '../login-policy/current.ts';
import { getUserById } from '../users/service.ts';
import { format } from '../views/i18n.ts';
import { loadPostedInteraction, type Interaction, type LoginDeps } from './interaction.ts';
import { formField } from '../web/forms.ts';
import { signedIn } from './signed-in.ts';
import { showRequiredChange } from './password-change-flow.ts';
import { FactorSetupPage, RecoveryCodesPage } from '../views/factors.ts';
import { openTicket, sealTicket, ticketExpired } from '../web/ticket.ts';

const STEP = 'second-factor';
const SETUP = 'factor-setup';
const DONE = 'factor-done';

interface StepTicket {
  userId: string;
  /** The user's kinds when the password was checked. */
  kinds: string[];
  /** The methods used so far (RFC 8176), 'pwd' after the password. */
  amr: string[];
  /** The kind the page asks for, and what its prompt keeps for verify(). */
  kind: string;
  state?: Record<string, unknown>;
  /** The user must replace the password once the factors are given. */
  changePassword?: boolean;
}

/** Who enrolls under forceMfa, the methods used so far, and whether a password change follows. */
interface SetupTicket {
  userId: string;
  amr: string[];
  changePassword?: boolean;
}

type Handler = (deps: LoginDeps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const stepUrl = (i: Interaction, step: string) => `/ui/login/${encodeURIComponent(i.uid)}/${step}`;

/** What follows a first factor: the user's second factor, enrollment under forceMfa, or the end of the sign-in. */
export async function afterFirstFactor(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  user: { id: string; factorKinds: string[]; forceMfa: boolean; changePassword?: boolean },
  amr: string[] = ['pwd'],
): Promise<FastifyReply> {
  const [first] = kindsOf(user.factorKinds);
  const who = { userId: user.id, amr, changePassword: user.changePassword };
  if (first) return askFactor(deps, request, reply, interaction, { ...who, kinds: user.factorKinds }, first);
  if (user.forceMfa) return showSetup(deps, reply, interaction, who, newTotpSecret());
  return afterFactors(deps, request, reply, interaction, who);
}

/** Every factor given: the password change the user owes, else the end of the sign-in. */
function afterFactors(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  who: SetupTicket,
): Promise<FastifyReply> {
  if (who.changePassword) return showRequiredChange(deps, interaction, reply, { userId: who.userId, amr: who.amr });
  return signedIn(deps, request, reply, interaction, who.userId, who.amr);
}

/** The same after a first factor that did not read the user with the policy: a registration, a JWT IdP. */
export async function afterFirstFactorOf(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  userId: string,
  amr: string[] = ['pwd'],
): Promise<FastifyReply> {
  const [user, policy] = await Promise.all([getUserById(deps.db, userId), getLoginPolicy(deps.db)]);
  return afterFirstFactor(
    deps,
    request,
    reply,
    interaction,
    {
      id: userId,
      factorKinds: user.factor_kinds,
      forceMfa: policy.forceMfa,
    },
    amr,
  );
}

/** The kinds the step offers a user: theirs, and a recovery code in place of any. */
const offered = (kinds: string[]): FactorKind[] => [...kindsOf(kinds), recoveryKind];

async function askFactor(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  i: Interaction,
  base: Omit<StepTicket, 'kind' | 'state'>,
  kind: FactorKind,
  status = 200,
  alert?: string,
): Promise<FastifyReply> {
  const t = deps.pages.texts(i.locale);
  const prompt = await kind.prompt(deps, { userId: base.userId, uid: i.uid, ip: request.ip });
  const ticket: StepTicket = { ...base, kind: kind.kind, state: prompt.state };
  const props = {
    action: stepUrl(i, STEP),
    csrf: i.csrf,
    ticket: sealTicket(deps, STEP, i.uid, ticket),
    others: offered(base.kinds)
      .filter((k) => k !== kind)
      .map((k) => ({ kind: k.kind, label: t[k.labelKey] })),
    alert,
  };
  // a passkey's page runs the WebAuthn script; every other page stays script-free
  const page = prompt.script
    ? deps.pages.renderWithScript(status, i.locale, prompt.view, 'factorTitle', props)
    : deps.pages.render(status, i.locale, prompt.view, 'factorTitle', props);
  return deps.pages.send(reply, page);
}

export const submitSecondFactor: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const ticket = openTicket<StepTicket>(deps, STEP, interaction.uid, formField(request, 'ticket'));
  if (!ticket) return ticketExpired(deps, interaction, reply);
  const kinds = offered(ticket.kinds);
  const other = kinds.find((k) => k.kind === formField(request, 'use'));
  if (other) return askFactor(deps, request, reply, interaction, ticket, other);
  const kind = kinds.find((k) => k.kind === ticket.kind);
  if (!kind) return ticketExpired(deps, interaction, reply);
  const attempt = { userId: ticket.userId, uid: interaction.uid, ip: request.ip };
  const check = await kind.verify(deps, attempt, (name) => formField(request, name), ticket.state);
  if (check.ok) {
    const amr = [...new Set([...ticket.amr, ...(check.amr ?? [kind.amr]), 'mfa'])];
    return afterFactors(deps, request, reply, interaction, { ...ticket, amr });
  }
  const t = deps.pages.texts(interaction.locale);
  if (check.retryAfter) {
    reply.header('retry-after', String(check.retryAfter));
    const alert = format(t.errorLocked!, { seconds: check.retryAfter });
    return askFactor(deps, request, reply, interaction, ticket, kind, 429, alert);
  }
  return askFactor(deps, request, reply, interaction, ticket, kind, 401, t.errorFactorCode);
};

/** Enrollment under forceMfa: the new secret travels sealed in the ticket until the first code confirms it. */
async function showSetup(
  deps: LoginDeps,
  reply: FastifyReply,
  i: Interaction,
  who: SetupTicket,
  secret: string,
  status = 200,
  alert?: string,
): Promise<FastifyReply> {
  const url = otpUrl(deps.config, await getUserById(deps.db, who.userId), secret);
  const qr = qrPath(url);
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, FactorSetupPage, 'factorSetupTitle', {
      action: stepUrl(i, SETUP),
      csrf: i.csrf,
      ticket: sealTicket(deps, SETUP, i.uid, { ...who, secret }),
      // in groups of four, as apps show a key typed by hand
      secret: secret.match(/.{1,4}/g)!.join(' '),
      url,
      qrSize: qr.size,
      qrPath: qr.path,
      alert,
    }),
  );
}

export const submitFactorSetup: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const ticket = openTicket<SetupTicket & { secret: string }>(
    deps,
    SETUP,
    interaction.uid,
    formField(request, 'ticket'),
  );
  if (!ticket) return ticketExpired(deps, interaction, reply);
  const code = formField(request, 'code') ?? '';
  const enrolled = await enrollOtp(deps, ticket.userId, ticket.secret, code, request.ip);
  const t = deps.pages.texts(interaction.locale);
  if (!enrolled.ok) {
    if (enrolled.retryAfter) reply.header('retry-after', String(enrolled.retryAfter));
    const [status, alert] = enrolled.retryAfter
      ? [429, format(t.errorLocked!, { seconds: enrolled.retryAfter })]
      : [401, t.errorFactorCode];
    return showSetup(deps, reply, interaction, ticket, ticket.secret, status, alert);
  }
  return deps.pages.send(
    reply,
    deps.pages.render(200, interaction.locale, RecoveryCodesPage, 'recoveryCodesTitle', {
      action: stepUrl(interaction, DONE),
      csrf: interaction.csrf,
      ticket: sealTicket(deps, DONE, interaction.uid, {
        userId: ticket.userId,
        amr: [...new Set([...ticket.amr, 'otp', 'mfa'])],
        changePassword: ticket.changePassword,
      } satisfies SetupTicket),
      codes: enrolled.recoveryCodes,
    }),
  );
};

/** After the recovery codes were shown: the sign-in completes with the methods used. */
export const submitFactorDone: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const ticket = openTicket<SetupTicket>(deps, DONE, interaction.uid, formField(request, 'ticket'));
  if (!ticket) return ticketExpired(deps, interaction, reply);
  return afterFactors(deps, request, reply, interaction, ticket);
};
