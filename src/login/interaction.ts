// What every interaction route needs: the interaction itself (from oidc-provider, by its cookie), the page
// language, the CSRF token and the URLs of the steps; and the ways a step ends.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { default as Provider, InteractionResults } from 'oidc-provider';
import type { Locale } from '../views/i18n.ts';
import { chooseLocale } from '../web/locale.ts';
import { csrfToken, sameOriginPost, validCsrfToken } from '../web/security.ts';
import { ForbiddenPost, formField } from '../web/forms.ts';
import type { PageDeps } from '../web/page-deps.ts';
import type { SharedRateLimiter } from '../platform/shared-rate-limit.ts';
import type { IdpKeyCache } from '../idps/jwt-token.ts';

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

/** What the login pages take besides what every page family does. */
export interface LoginDeps extends PageDeps {
  /** Self-registrations per client address. */
  registrations: SharedRateLimiter;
  /** The JWT IdPs' signing keys. */
  idpKeys: IdpKeyCache;
}

export interface Interaction {
  details: InteractionDetails;
  uid: string;
  locale: Locale;
  csrf: string;
  urls: { loginName: string; password: string; select: string; register: string; consent: string; passkey: string };
}

/** What a page of an interaction shows besides its content: language, CSRF token, the URLs of the steps. */
export type InteractionPage = Omit<Interaction, 'details'>;

function pageOf(deps: LoginDeps, request: FastifyRequest, uid: string, uiLocales: unknown): InteractionPage {
  const base = `/ui/login/${encodeURIComponent(uid)}`;
  return {
    uid,
    locale: chooseLocale(uiLocales, request.headers['accept-language']),
    csrf: csrfToken(deps.secrets, uid),
    urls: {
      loginName: `${base}/login-name`,
      password: `${base}/password`,
      select: `${base}/select`,
      register: `${base}/register`,
      consent: `${base}/consent`,
      passkey: `${base}/passkey`,
    },
  };
}

export async function loadInteraction(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Interaction> {
  const details = await deps.oidc.provider().interactionDetails(request.raw, reply.raw);
  return { details, ...pageOf(deps, request, details.uid, details.params.ui_locales) };
}

/** An unexpired interaction by its ID, without its cookie: for the JWT IdP's return (jwt-idp-flow.ts), which binds
 *  the ID to the browser with a cookie of its own. */
export async function interactionById(
  deps: LoginDeps,
  request: FastifyRequest,
  uid: string,
): Promise<Interaction | undefined> {
  const details = uid ? await deps.oidc.provider().Interaction.find(uid) : undefined;
  if (!details || details.exp <= Math.floor(Date.now() / 1000)) return undefined;
  return { details, ...pageOf(deps, request, details.uid, details.params.ui_locales) };
}

/** The page of the interaction the URL names, without reading the interaction (no database work): for answers
 *  given before anything else is done, such as a request the hashing queue sheds. Accept-Language alone chooses
 *  the language; the CSRF token is derived from the ID, so a made-up ID gets a token no interaction accepts. */
export function interactionPageOf(deps: LoginDeps, request: FastifyRequest): InteractionPage {
  return pageOf(deps, request, String((request.params as { uid?: unknown }).uid ?? ''), undefined);
}

/** Loads the interaction of a form POST after checking where it came from and its CSRF token. */
export async function loadPostedInteraction(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Interaction> {
  if (!sameOriginPost(request.headers, new URL(deps.config.issuer).origin))
    throw new ForbiddenPost('cross-origin form post');
  const interaction = await loadInteraction(deps, request, reply);
  if (!validCsrfToken(deps.secrets, interaction.uid, formField(request, 'csrf')))
    throw new ForbiddenPost('missing or wrong CSRF token');
  // The user acts: the pending request is kept another GATEHOUSE_INTERACTION_TTL (the adapter caps each save to
  // it), so only requests nobody acts on expire that early. While more than half of the first save's
  // TTL is left the save is skipped: a sign-in of a few seconds writes nothing extra, and a stored interaction
  // always outlives the user's last form post by at least half the TTL.
  const { details } = interaction;
  if (Math.floor(Date.now() / 1000) - details.iat >= deps.config.ttl.interaction / 2)
    await details.save(remainingSeconds(details));
  return interaction;
}

const remainingSeconds = (details: InteractionDetails) => Math.max(1, details.exp - Math.floor(Date.now() / 1000));

/** Ends the interaction and sends the browser back to the authorization endpoint with 303 (RFC 9700 §4.12). What
 *  the provider's interactionResult does, on the interaction this request has already loaded (and checked): it
 *  would look the interaction up again. */
export async function finish(
  interaction: Interaction,
  reply: FastifyReply,
  result: InteractionResults,
): Promise<FastifyReply> {
  await saveResult(interaction, result);
  return reply.redirect(interaction.details.returnTo, 303);
}

/** Stores how the interaction ends; the browser completes it at details.returnTo. */
export async function saveResult(interaction: Interaction, result: InteractionResults): Promise<void> {
  const { details } = interaction;
  details.result = result;
  await details.save(remainingSeconds(details));
}
