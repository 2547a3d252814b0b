// Username-first sign-in: the start page decides by prompt, page 1 asks the login name, page 2
// the password; the account chooser lists the accounts of this browser.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { signInWithPassword } from './sign-in.ts';
import { withPasswordCheckAhead } from './password-read-ahead.ts';
import { describeAccounts, type AccountSummary } from '../users/accounts.ts';
import { format } from '../views/i18n.ts';
import {
  finish,
  interactionPageOf,
  loadInteraction,
  loadPostedInteraction,
  type Interaction,
  type InteractionPage,
  type LoginDeps,
} from './interaction.ts';
import { formField } from '../web/forms.ts';
import { knownAccountIds, requestedPrompts } from './signed-in.ts';
import { afterFirstFactor } from './second-factor-flow.ts';
import { showOpenRegistration } from './register-flow.ts';
import { showConsent } from './consent-flow.ts';
import { refuseSignIn } from './refused.ts';
import { HashRefusal, HashingShareTaken, type HashSlot } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { forgotPasswordUrl } from '../web/urls.ts';
import { goToIdp, requestedIdpId } from './jwt-idp-flow.ts';
import { armPendingLink } from './jwt-idp-link.ts';
import { LoginNamePage, PasswordPage, SelectAccountPage } from '../views/login.ts';
import { getLoginPolicy } from '../login-policy/current.ts';
import { idpButtons } from './page-read-ahead.ts';

const LOGIN_NAME_MAX = 400;

type Handler = (deps: LoginDeps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const initial = (name: string) => [...name.trim()][0]?.toUpperCase() ?? '?';

export const showStart: Handler = async (deps, request, reply) => {
  const interaction = await loadInteraction(deps, request, reply);
  const { prompt, params } = interaction.details;
  if (prompt.name === 'create') return showOpenRegistration(deps, interaction, reply);
  if (prompt.name === 'consent') return showConsent(deps, interaction, reply);
  const idpId = requestedIdpId(interaction);
  if (idpId) return goToIdp(deps, interaction, reply, idpId);
  const accounts = await describeAccounts(deps.db, knownAccountIds(deps, request));
  // prompt=select_account, or a plain request on a browser that knows several accounts (OIDC Core §3.1.2.1).
  const choose =
    prompt.name === 'select_account' ||
    (prompt.name === 'login' && accounts.length >= 2 && !params.login_hint && prompt.reasons.includes('no_session'));
  if (choose && accounts.length)
    return renderChooser(
      deps,
      interaction,
      reply,
      accounts,
      typeof params.login_hint === 'string' ? params.login_hint : undefined,
    );
  return renderLoginName(deps, interaction, reply, 200, typeof params.login_hint === 'string' ? params.login_hint : '');
};

export const showLoginName: Handler = async (deps, request, reply) => {
  const interaction = await loadInteraction(deps, request, reply);
  const given = (request.query as Record<string, unknown>).loginName;
  return renderLoginName(
    deps,
    interaction,
    reply,
    200,
    typeof given === 'string' ? given.slice(0, LOGIN_NAME_MAX) : '',
  );
};

export const submitLoginName: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const loginName = (formField(request, 'loginName') ?? '').trim();
  if (!loginName || loginName.length > LOGIN_NAME_MAX) {
    return renderLoginName(
      deps,
      interaction,
      reply,
      400,
      loginName.slice(0, LOGIN_NAME_MAX),
      deps.pages.texts(interaction.locale).errorLoginNameRequired,
    );
  }
  // Page 2 follows for every name, known or not, so page 1 reveals no user name.
  return renderPassword(deps, interaction, reply, 200, loginName);
};

export const submitPassword: Handler = async (deps, request, reply) => {
  const loginName = (formField(request, 'loginName') ?? '').trim().slice(0, LOGIN_NAME_MAX);
  // The place in the hashing queue comes first: it costs nothing, and a request over the bounds is
  // answered before any database work, with the same form to send again in a moment.
  const slot = deps.hashing.tryAdmit(request.ip);
  if (slot instanceof HashRefusal) {
    // the address's own excess is a rate limit (429), not the server's overload (503)
    deps.metrics.logins.inc({ result: slot instanceof HashingShareTaken ? 'limited' : 'busy' });
    const page = interactionPageOf(deps, request);
    const { status, alert } = answerHashRefusal(reply, slot, deps.pages.texts(page.locale));
    return renderPassword(deps, page, reply, status, loginName, { alert });
  }
  try {
    return await withPasswordCheckAhead(deps, request, loginName, () =>
      checkPassword(deps, request, reply, loginName, slot),
    );
  } finally {
    slot.release();
  }
};

async function checkPassword(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  loginName: string,
  slot: HashSlot,
): Promise<FastifyReply> {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const t = deps.pages.texts(interaction.locale);
  const password = formField(request, 'password') ?? '';
  if (!loginName) return renderLoginName(deps, interaction, reply, 400, '', t.errorLoginNameRequired);
  if (!password) return renderPassword(deps, interaction, reply, 400, loginName, { error: t.errorPasswordRequired });
  const outcome = await signInWithPassword(deps.db, slot, deps.config.lockout, { loginName, password, ip: request.ip });
  deps.metrics.logins.inc({
    result: outcome.kind === 'ok' ? 'success' : outcome.kind === 'locked' ? 'locked' : 'failure',
  });
  if (outcome.kind === 'locked') {
    reply.header('retry-after', String(outcome.retryAfter));
    return renderPassword(deps, interaction, reply, 429, loginName, {
      alert: format(t.errorLocked!, { seconds: outcome.retryAfter }),
    });
  }
  // One message and one status for unknown names and wrong passwords, so neither reveals a user name.
  if (outcome.kind === 'invalid')
    return renderPassword(deps, interaction, reply, 401, loginName, { alert: t.errorCredentials });
  // An IdP identity waiting on this interaction is for this user, linked once the whole sign-in has succeeded
  // (jwt-idp-link.ts); nothing lasting is written by the password step alone.
  armPendingLink(deps, request, reply, interaction.uid, outcome.user.id);
  // The second factor, or its enrollment under forceMfa; then the change of a password set by an administrator or
  // imported as temporary (second-factor-flow.ts). All read with the user by the sign-in: no statement here.
  const { id, factor_kinds: factorKinds, policy_force_mfa: forceMfa } = outcome.user;
  const changePassword = outcome.user.password_change_required;
  return afterFirstFactor(deps, request, reply, interaction, { id, factorKinds, forceMfa, changePassword });
}

export const submitSelect: Handler = async (deps, request, reply) => {
  const interaction = await loadPostedInteraction(deps, request, reply);
  const known = knownAccountIds(deps, request);
  const chosen = formField(request, 'accountId');
  const [account] = chosen && known.includes(chosen) ? await describeAccounts(deps.db, [chosen]) : [];
  if (!account) return renderLoginName(deps, interaction, reply, 200, '');
  const { session, params } = interaction.details;
  // The account of the current session continues without a password, unless the client demands a fresh login
  // (prompt=login, max_age: OIDC Core §3.1.2.1); its original authentication time is kept.
  if (
    session?.accountId === account.id &&
    !requestedPrompts(interaction.details).has('login') &&
    params.max_age === undefined
  ) {
    // by its uid: the session's cookie value is not stored with the interaction (oidc/payloads.ts storedPayload)
    const current = session.uid ? await deps.oidc.provider().Session.findByUid(session.uid) : undefined;
    if (current?.accountId === account.id && current.loginTs) {
      const result = { select_account: {}, login: { accountId: account.id, ts: current.loginTs, amr: current.amr } };
      if (await refuseSignIn(deps, interaction, reply, account.id, result)) return reply;
      return finish(interaction, reply, result);
    }
  }
  return renderPassword(deps, interaction, reply, 200, account.loginName);
};

async function renderLoginName(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  status: number,
  loginName: string,
  error?: string,
): Promise<FastifyReply> {
  // The active IdPs on the login policy's list; the login policy also says whether IdPs,
  // registration and passwords are offered at all.
  const [policy, listed] = await Promise.all([getLoginPolicy(deps.db), idpButtons(deps.db, deps.instance.id)]);
  const idps = (policy.allowExternalIdp ? listed : []).map((idp) => ({
    id: idp.id,
    name: idp.name,
    href: `/ui/login/${encodeURIComponent(i.uid)}/idp/${encodeURIComponent(idp.id)}`,
  }));
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, LoginNamePage, 'loginTitle', {
      action: i.urls.loginName,
      csrf: i.csrf,
      loginName,
      error,
      registerUrl: policy.allowRegister ? i.urls.register : undefined,
      allowPassword: policy.allowUsernamePassword,
      idps,
      passkeyUrl: policy.passwordlessAllowed ? i.urls.passkey : undefined,
    }),
  );
}

function renderPassword(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  status: number,
  loginName: string,
  messages: { error?: string; alert?: string } = {},
): FastifyReply {
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, PasswordPage, 'passwordTitle', {
      action: i.urls.password,
      csrf: i.csrf,
      loginName,
      initial: initial(loginName),
      changeUrl: `${i.urls.loginName}?loginName=${encodeURIComponent(loginName)}`,
      forgotUrl: forgotPasswordUrl(loginName),
      error: messages.error,
      alert: messages.alert,
    }),
  );
}

/** The chooser; the account named by login_hint, if any, comes first and has the focus (OIDC Core §3.1.2.1). */
function renderChooser(
  deps: LoginDeps,
  i: Interaction,
  reply: FastifyReply,
  accounts: AccountSummary[],
  loginHint?: string,
): FastifyReply {
  const hinted = (a: AccountSummary) =>
    loginHint !== undefined &&
    [a.loginName.toLowerCase(), a.loginName.split('@')[0]!.toLowerCase()].includes(loginHint.toLowerCase());
  const ordered = [...accounts.filter(hinted), ...accounts.filter((a) => !hinted(a))];
  return deps.pages.send(
    reply,
    deps.pages.render(200, i.locale, SelectAccountPage, 'selectTitle', {
      action: i.urls.select,
      csrf: i.csrf,
      otherUrl: i.urls.loginName,
      accounts: ordered.map((a, index) => ({ ...a, initial: initial(a.displayName), focus: index === 0 })),
    }),
  );
}
