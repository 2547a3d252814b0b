// "Sign in with a passkey": passwordless sign-in with a discoverable credential and user verification.
// The page carries the challenge bound to this interaction; the browser's answer comes back as a form POST with
// the interaction's CSRF token, so a challenge is good once, only in the browser it was issued to.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Code } from '../platform/errors.ts';
import { findActiveUser } from '../users/lookup.ts';
import { finishPasswordless, startPasswordless } from '../passkeys/service.ts';
import { credentialOf, rpOf } from '../web/passkey-ceremony.ts';
import { getLoginPolicy } from '../login-policy/current.ts';
import { loadInteraction, loadPostedInteraction, type Interaction, type LoginDeps } from './interaction.ts';
import { signedIn } from './signed-in.ts';
import { armPendingLink } from './jwt-idp-link.ts';
import { PasskeyPage } from '../views/passkeys.ts';
import { ErrorPage } from '../views/messages.ts';

type Handler = (deps: LoginDeps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export const showPasskey: Handler = async (deps, request, reply) => {
  const interaction = await loadInteraction(deps, request, reply);
  return renderPasskey(deps, interaction, reply, 200);
};

export const submitPasskey: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  if (!(await passwordlessAllowed(deps))) return notAllowed(deps, interaction, reply);
  const t = deps.pages.texts(interaction.locale);
  let outcome: { userId: string; amr: string[] };
  try {
    outcome = await finishPasswordless(deps.db, rpOf(deps), { binding: interaction.uid }, credentialOf(request));
  } catch (error) {
    if (!(error instanceof AppError && error.code === Code.InvalidArgument)) throw error;
    deps.metrics.logins.inc({ result: 'failure' });
    return renderPasskey(deps, interaction, reply, 400, t.passkeyFailed);
  }
  const user = await findActiveUser(deps.db, outcome.userId);
  if (user?.type !== 'human') {
    deps.metrics.logins.inc({ result: 'failure' });
    return renderPasskey(deps, interaction, reply, 400, t.passkeyFailed);
  }
  deps.metrics.logins.inc({ result: 'success' });
  armPendingLink(deps, request, reply, interaction.uid, user.id);
  // A passkey with user verification is something the user has plus something they are or know: ZITADEL counts
  // passwordless as multi-factor, and so does Gatehouse (docs/login-and-accounts.md, "Passkeys").
  return signedIn(deps, request, reply, interaction, user.id, [...outcome.amr, 'mfa']);
};

/** The login policy's passwordlessType (ZITADEL's PASSWORDLESS_TYPE_ALLOWED). */
const passwordlessAllowed = async (deps: LoginDeps) => (await getLoginPolicy(deps.db)).passwordlessAllowed;

async function renderPasskey(
  deps: LoginDeps,
  interaction: Interaction,
  reply: FastifyReply,
  status: number,
  alert?: string,
): Promise<FastifyReply> {
  if (!(await passwordlessAllowed(deps))) return notAllowed(deps, interaction, reply);
  const t = deps.pages.texts(interaction.locale);
  const options = await startPasswordless(deps.db, rpOf(deps), { binding: interaction.uid });
  return deps.pages.send(
    reply,
    deps.pages.renderWithScript(status, interaction.locale, PasskeyPage, 'passkeyTitle', {
      heading: t.passkeyTitle,
      lead: t.passkeyLead,
      button: t.passkeyUse,
      ceremony: 'get',
      options: JSON.stringify(options),
      action: interaction.urls.passkey,
      csrf: interaction.csrf,
      backUrl: interaction.urls.loginName,
      alert,
    }),
  );
}

function notAllowed(deps: LoginDeps, interaction: Interaction, reply: FastifyReply): FastifyReply {
  const t = deps.pages.texts(interaction.locale);
  const page = { title: t.errorTitle, message: t.passkeyNotAllowed, code: 'invalid_request' };
  return deps.pages.send(reply, deps.pages.render(403, interaction.locale, ErrorPage, 'errorTitle', page));
}
