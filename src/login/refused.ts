// The page of a refused sign-in: an org scope, projectRoleCheck or hasProjectCheck does not admit the
// user. It says why in the login's look; its button completes the authorization with access_denied to the app: the
// sign-in's result is stored as it is, the user's session starts (as ZITADEL keeps its user session), and the
// provider, which checks every authorization (provider.ts loadExistingGrant), refuses this one with the reason.
import type { FastifyReply } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { SIGN_IN_CHECKS_PARAM, signInRefusal, type CheckedClient } from '../oidc/sign-in-checks.ts';
import { saveResult, type Interaction, type LoginDeps } from './interaction.ts';
import { RefusedPage } from '../views/login.ts';

const TEXT_KEYS = { org: 'refusedOrg', project_role: 'refusedProjectRole', has_project: 'refusedHasProject' } as const;

/** Sends the refusal page and says true, or says false when the user may sign in to the interaction's app. A
 *  boolean, not the reply: a Fastify reply is a thenable that resolves to undefined once sent, so an async function
 *  returning it reads as "not refused" to its caller, which then answered a second time. */
export async function refuseSignIn(
  deps: LoginDeps,
  interaction: Interaction,
  reply: FastifyReply,
  userId: string,
  result: InteractionResults,
): Promise<boolean> {
  const { params } = interaction.details;
  const scopes = new Set(String(params.scope ?? '').split(' '));
  // The client is read only when its project checks who signs in (provider.ts notes it in the parameters); the
  // provider checks every authorization again, whatever this page did.
  const client =
    params[SIGN_IN_CHECKS_PARAM] === 'project' ? await deps.oidc.provider().Client.find(String(params.client_id)) : {};
  const refusal = client && (await signInRefusal(deps.db, userId, client as CheckedClient, scopes));
  if (!refusal) return false;
  await saveResult(interaction, result);
  const t = deps.pages.texts(interaction.locale);
  deps.pages.send(
    reply,
    deps.pages.render(403, interaction.locale, RefusedPage, 'refusedTitle', {
      message: t[TEXT_KEYS[refusal]],
      continueUrl: interaction.details.returnTo,
    }),
  );
  return true;
}
