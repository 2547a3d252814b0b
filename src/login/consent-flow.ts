// The consent page. The management API scope lets an app act with the user's permissions; an app of
// another organization than the instance's own gets it only after the user allowed it here, once per user and app
// (src/consents/). The page names the app, its organization and what it gets; Deny returns access_denied to the
// app. Every other consent prompt is answered without a page: those apps are first-party, as in ZITADEL.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MANAGEMENT_API_SCOPE } from '../oidc/scopes.ts';
import {
  describeConsentRequest,
  grantAppConsent,
  needsConsent,
  type ConsentRequest,
  type ConsentSubject,
} from '../consents/service.ts';
import { describeAccounts } from '../users/accounts.ts';
import { format } from '../views/i18n.ts';
import { finish, loadPostedInteraction, type Interaction, type LoginDeps } from './interaction.ts';
import { formField } from '../web/forms.ts';
import { ErrorPage } from '../views/messages.ts';
import { ConsentPage } from '../views/login.ts';

interface PendingConsent {
  subject: ConsentSubject;
  request: ConsentRequest;
}

/** The consent this interaction waits for, if the user has not given it yet. */
async function pendingConsent(deps: LoginDeps, interaction: Interaction): Promise<PendingConsent | undefined> {
  const { prompt, params, session } = interaction.details;
  const userId = session?.accountId;
  if (
    prompt.name !== 'consent' ||
    !userId ||
    !String(params.scope ?? '')
      .split(' ')
      .includes(MANAGEMENT_API_SCOPE)
  )
    return undefined;
  const subject = { clientId: String(params.client_id), userId, scope: MANAGEMENT_API_SCOPE };
  const request = await describeConsentRequest(deps.db, deps.instance.default_org_id, subject);
  return request && needsConsent(request) ? { subject, request } : undefined;
}

/** The consent prompt (the start page hands it here). */
export async function showConsent(
  deps: LoginDeps,
  interaction: Interaction,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const pending = await pendingConsent(deps, interaction);
  if (!pending) return finish(interaction, reply, { consent: {} });
  return renderConsent(deps, interaction, reply, 200, pending.request);
}

export async function submitConsent(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const t = deps.pages.texts(interaction.locale);
  if (interaction.details.prompt.name !== 'consent') return invalidRequest(deps, interaction, reply, t.errorExpired!);
  const decision = formField(request, 'decision');
  if (decision === 'deny')
    return finish(interaction, reply, { error: 'access_denied', error_description: 'the user denied the consent' });
  const pending = await pendingConsent(deps, interaction);
  if (decision !== 'allow') {
    return pending
      ? renderConsent(deps, interaction, reply, 400, pending.request, t.errorConsentDecision)
      : invalidRequest(deps, interaction, reply, t.errorConsentDecision!);
  }
  // Without a pending consent (given meanwhile, e.g. in another tab) there is nothing to record.
  if (pending) await grantAppConsent(deps.db, pending.subject);
  return finish(interaction, reply, { consent: {} });
}

function invalidRequest(deps: LoginDeps, i: Interaction, reply: FastifyReply, message: string): FastifyReply {
  const t = deps.pages.texts(i.locale);
  return deps.pages.send(
    reply,
    deps.pages.render(400, i.locale, ErrorPage, 'errorTitle', {
      title: t.errorTitle,
      message,
      code: 'invalid_request',
    }),
  );
}

async function renderConsent(
  deps: LoginDeps,
  i: Interaction,
  reply: FastifyReply,
  status: number,
  request: ConsentRequest,
  alert?: string,
): Promise<FastifyReply> {
  const t = deps.pages.texts(i.locale);
  const [account] = await describeAccounts(deps.db, [i.details.session!.accountId]);
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, ConsentPage, 'consentTitle', {
      action: i.urls.consent,
      csrf: i.csrf,
      alert,
      appName: request.appName,
      orgName: request.orgName,
      lead: format(t.consentLead!, { app: request.appName, org: request.orgName }),
      account: account && { ...account, initial: [...account.displayName][0]?.toUpperCase() },
    }),
  );
}
