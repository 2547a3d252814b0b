// Sign-in with a JWT identity provider, as ZITADEL's login v1 does it: the browser goes to the IdP's
// jwtEndpoint with authRequestID and userAgentID; a proxy there puts the user's JWT into the header `headerName`
// and forwards the request, query intact, to /ui/login/login/jwt/authorize. That request is a plain GET anyone can
// make a browser send, so the authRequestID must be the interaction THIS browser started with this IdP: a cookie
// set when the browser was sent to the IdP binds the two (login CSRF; SECURITY.md "Sign-in with a JWT identity
// provider").
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findLoginIdp, type IdpRow } from '../idps/queries.ts';
import { TokenRefused, tokenFromHeader } from '../idps/jwt-token.ts';
import { findLinkedUserId, identityDisplayName, registerFromIdentity, type ExternalIdentity } from '../idps/links.ts';
import { findActiveUser } from '../users/lookup.ts';
import { IDP_ID_PREFIX, ORG_ID_PREFIX, scopeValues } from '../oidc/scopes.ts';
import { interactionById, loadInteraction, saveResult, type Interaction, type LoginDeps } from './interaction.ts';
import { afterFirstFactorOf } from './second-factor-flow.ts';
import { getLoginPolicy } from '../login-policy/current.ts';
import type { Locale } from '../views/i18n.ts';
import { chooseLocale } from '../web/locale.ts';
import { rememberPendingLink } from './jwt-idp-link.ts';
import { ErrorPage, MessagePage } from '../views/messages.ts';

export const JWT_AUTHORIZE_PATH = '/ui/login/login/jwt/authorize';
const BINDING_COOKIE = 'gatehouse_jwt_idp';
const BINDING_PURPOSE = 'jwt-idp-binding:';
const USER_AGENT_PURPOSE = 'jwt-idp-user-agent:';
/** RFC 8176 has no value for a federated sign-in; "fed" says the IdP authenticated the user (SECURITY.md). */
const FEDERATED_AMR = ['fed'];

type Handler = (deps: LoginDeps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The IdP the request's scope urn:zitadel:iam:org:idp:id:{idpId} names, if any. */
export function requestedIdpId(interaction: Interaction): string | undefined {
  return scopeValues(String(interaction.details.params.scope ?? '').split(' '), IDP_ID_PREFIX)[0];
}

/** The IdP, if users may sign in with it now: on the instance's login policy and active. Both steps ask, so an
 *  IdP taken off the policy, removed or deactivated mid-flow finishes no sign-in either. */
async function usableIdp(deps: LoginDeps, idpId: string): Promise<IdpRow | undefined> {
  const idp = await findLoginIdp(deps.db, deps.instance.id, idpId);
  return idp?.state === 'active' ? idp : undefined;
}

/** GET /ui/login/:uid/idp/:idpId, the "Continue with" button. */
export const continueWithIdp: Handler = async (deps, request, reply) => {
  const interaction = await loadInteraction(deps, request, reply);
  return goToIdp(deps, interaction, reply, String((request.params as { idpId?: unknown }).idpId ?? ''));
};

/** Sends the browser to the IdP's jwtEndpoint (its own query kept) and binds the interaction to this browser. */
export async function goToIdp(
  deps: LoginDeps,
  interaction: Interaction,
  reply: FastifyReply,
  idpId: string,
): Promise<FastifyReply> {
  // allowExternalIdp off refuses the buttons' route and the idp scope alike
  const [idp, policy] = await Promise.all([usableIdp(deps, idpId), getLoginPolicy(deps.db)]);
  if (!idp || !policy.allowExternalIdp) return errorPage(deps, interaction.locale, reply, 400, 'errorIdpUnavailable');
  const uid = interaction.uid;
  reply.setCookie(BINDING_COOKIE, `${uid}.${idp.id}.${deps.secrets.hashSecret(BINDING_PURPOSE + uid + idp.id)}`, {
    path: JWT_AUTHORIZE_PATH,
    httpOnly: true,
    // the proxy's forward is a top-level GET navigation, which Lax cookies accompany
    sameSite: 'lax',
    secure: deps.config.issuer.startsWith('https:'),
    maxAge: Math.max(1, interaction.details.exp - Math.floor(Date.now() / 1000)),
  });
  const target = new URL(idp.jwt_endpoint);
  target.searchParams.set('authRequestID', uid);
  target.searchParams.set('userAgentID', userAgentId(deps, uid));
  return reply.redirect(target.href, 303);
}

const userAgentId = (deps: LoginDeps, uid: string) => deps.secrets.hashSecret(USER_AGENT_PURPOSE + uid).slice(-32);

/** The interaction and IdP the binding cookie names, if it is genuine and names this authRequestID. */
function boundIdp(deps: LoginDeps, request: FastifyRequest, authRequestId: string): string | undefined {
  const [uid, idpId, mac, ...rest] = (request.cookies[BINDING_COOKIE] ?? '').split('.');
  if (rest.length || !uid || !idpId || !mac || uid !== authRequestId) return undefined;
  return deps.secrets.verifySecret(BINDING_PURPOSE + uid + idpId, mac) ? idpId : undefined;
}

/** GET /ui/login/login/jwt/authorize: the proxy's forward. Every failure ends on a page or, once the interaction
 *  is known, as an OAuth error at the relying party; the log says why, never with the token. */
export const receiveJwt: Handler = async (deps, request, reply) => {
  const query = request.query as Record<string, unknown>;
  const authRequestId = typeof query.authRequestID === 'string' ? query.authRequestID : '';
  const locale = chooseLocale(undefined, request.headers['accept-language']);
  const idpId = boundIdp(deps, request, authRequestId);
  if (!idpId) {
    request.log.warn({ authRequestId }, 'jwt idp: authRequestID not bound to this browser');
    return errorPage(deps, locale, reply, 403, 'errorIdpNotThisBrowser');
  }
  const interaction = await interactionById(deps, request, authRequestId);
  if (!interaction || interaction.details.result) {
    request.log.warn({ authRequestId }, 'jwt idp: interaction expired or completed');
    return errorPage(deps, locale, reply, 400, 'errorExpired');
  }
  reply.clearCookie(BINDING_COOKIE, { path: JWT_AUTHORIZE_PATH });
  // allowExternalIdp off refuses the buttons' route and the idp scope alike
  const [idp, policy] = await Promise.all([usableIdp(deps, idpId), getLoginPolicy(deps.db)]);
  if (!idp || !policy.allowExternalIdp)
    return deny(request, reply, interaction, 'identity provider not active, not on the login policy, or not allowed');
  const token = tokenFromHeader(request.headers[idp.header_name.toLowerCase()]);
  if (!token) return deny(request, reply, interaction, `no token in header ${idp.header_name}`);
  let identity: ExternalIdentity;
  let claims: Awaited<ReturnType<LoginDeps['idpKeys']['verify']>>['claims'];
  try {
    const verified = await deps.idpKeys.verify(idp, token);
    claims = verified.claims;
    identity = { idpId: idp.id, externalUserId: verified.sub, displayName: identityDisplayName(claims, verified.sub) };
  } catch (error) {
    if (!(error instanceof TokenRefused)) throw error;
    return deny(request, reply, interaction, error.message, error.keysUnavailable);
  }
  const linked = await findLinkedUserId(deps.db, idp.id, identity.externalUserId);
  if (linked) {
    if (!(await findActiveUser(deps.db, linked))) return deny(request, reply, interaction, 'user not active');
    return afterFirstFactorOf(deps, request, reply, interaction, linked, FEDERATED_AMR);
  }
  if (idp.auto_register) {
    const orgId = registrationOrg(deps, interaction);
    const userId = await registerFromIdentity(deps.db, orgId, identity, claims);
    request.log.info({ userId, idpId: idp.id }, 'jwt idp: user registered');
    return afterFirstFactorOf(deps, request, reply, interaction, userId, FEDERATED_AMR);
  }
  // Not linked: the user may sign in with an existing account, which links it once that sign-in completes
  // (jwt-idp-link.ts).
  rememberPendingLink(deps, reply, interaction.uid, identity);
  return deps.pages.send(
    reply,
    deps.pages.render(200, interaction.locale, MessagePage, 'idpNotLinkedTitle', {
      title: deps.pages.texts(interaction.locale).idpNotLinkedTitle,
      message: deps.pages.texts(interaction.locale).idpNotLinked,
      link: { href: interaction.urls.loginName, label: deps.pages.texts(interaction.locale).idpLinkExisting },
    }),
  );
};

/** Instance IdPs register into the org the request names with urn:zitadel:iam:org:id:{orgId}, else the default. */
function registrationOrg(deps: LoginDeps, interaction: Interaction): string {
  const [orgId] = scopeValues(String(interaction.details.params.scope ?? '').split(' '), ORG_ID_PREFIX);
  return orgId ?? deps.instance.default_org_id;
}

/** Ends the authorization with an OAuth error the relying party receives (OIDC Core 3.1.2.6). */
async function deny(
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  reason: string,
  unavailable = false,
): Promise<FastifyReply> {
  request.log.warn({ authRequestId: interaction.uid, reason }, 'jwt idp: sign-in refused');
  await saveResult(interaction, {
    error: unavailable ? 'temporarily_unavailable' : 'access_denied',
    error_description: unavailable ? 'the identity provider cannot be reached' : 'the identity provider sign-in failed',
  });
  return reply.redirect(interaction.details.returnTo, 303);
}

function errorPage(deps: LoginDeps, locale: Locale, reply: FastifyReply, status: number, key: string) {
  const t = deps.pages.texts(locale);
  return deps.pages.send(
    reply,
    deps.pages.render(status, locale, ErrorPage, 'errorTitle', {
      title: t.errorTitle,
      message: t[key],
      code: status === 403 ? 'access_denied' : 'invalid_request',
    }),
  );
}
