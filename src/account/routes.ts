// The account pages' routes, registered in the pages' scope (web/plugin.ts) with the login pages and the console: the
// same cookies, form parser, NUL check, security headers and error pages. Also the small home page at `/`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PageDeps } from '../web/page-deps.ts';
import { RateLimiter } from '../platform/rate-limit.ts';
import { format } from '../views/i18n.ts';
import { ACCOUNT_CALLBACK_PATH } from '../oidc/account-client.ts';
import { type AccountDeps, type AccountHandler, pageBasics } from './deps.ts';
import { accountCallback, reauthenticate, showAccount, submitPassword, submitProfile } from './account-page.ts';
import { submitEmail, submitEmailCode, submitResend } from './email-section.ts';
import {
  showForgotPassword,
  showPasswordReset,
  showVerifyEmail,
  submitForgotPassword,
  submitPasswordReset,
  submitVerifyEmail,
} from './recovery.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';
import {
  FACTORS_PATH,
  showFactors,
  submitAddOtp,
  submitRecoveryCodes,
  submitRemoveOtp,
  submitVerifyOtp,
} from './factors-page.ts';
import { submitNewPasskey, submitPasskey, submitRemovePasskey } from './passkeys.ts';
import { HomePage } from '../views/account.ts';

// a script asking resets for many accounts from one address is stopped here; each account has its own
// hourly limit on top (codes/service.ts)
const RESETS_PER_ADDRESS_AND_HOUR = 10;

const showHome: AccountHandler = async (deps, request, reply) => {
  const { locale } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  const instanceName = deps.pages.instanceName;
  const page = { instanceName, lead: format(t.homeLead!, { instance: instanceName }) };
  return deps.pages.send(reply, deps.pages.render(200, locale, HomePage, 'homeAccount', page));
};

export function registerAccountRoutes(ui: FastifyInstance, web: PageDeps): void {
  const deps: AccountDeps = {
    ...web,
    resets: new RateLimiter({ limit: RESETS_PER_ADDRESS_AND_HOUR, windowSeconds: 3600 }),
  };
  const route = (handler: AccountHandler) => (request: FastifyRequest, reply: FastifyReply) =>
    handler(deps, request, reply);
  ui.get('/', route(showHome));
  ui.get(ACCOUNT_PATH, route(showAccount));
  ui.get(ACCOUNT_CALLBACK_PATH, route(accountCallback));
  ui.get(`${ACCOUNT_PATH}/reauth`, route(reauthenticate));
  ui.post(`${ACCOUNT_PATH}/profile`, route(submitProfile));
  ui.post(`${ACCOUNT_PATH}/email`, route(submitEmail));
  ui.post(`${ACCOUNT_PATH}/email/verify`, route(submitEmailCode));
  ui.post(`${ACCOUNT_PATH}/email/resend`, route(submitResend));
  ui.post(`${ACCOUNT_PATH}/password`, route(submitPassword));
  ui.get(FACTORS_PATH, route(showFactors));
  ui.post(`${FACTORS_PATH}/otp`, route(submitAddOtp));
  ui.post(`${FACTORS_PATH}/otp/verify`, route(submitVerifyOtp));
  ui.post(`${FACTORS_PATH}/otp/remove`, route(submitRemoveOtp));
  ui.post(`${FACTORS_PATH}/recovery`, route(submitRecoveryCodes));
  ui.post(`${ACCOUNT_PATH}/passkeys/new`, route(submitNewPasskey));
  ui.post(`${ACCOUNT_PATH}/passkeys`, route(submitPasskey));
  ui.post(`${ACCOUNT_PATH}/passkeys/remove`, route(submitRemovePasskey));
  ui.get(`${ACCOUNT_PATH}/verify-email`, route(showVerifyEmail));
  ui.post(`${ACCOUNT_PATH}/verify-email`, route(submitVerifyEmail));
  ui.get(`${ACCOUNT_PATH}/forgot-password`, route(showForgotPassword));
  ui.post(`${ACCOUNT_PATH}/forgot-password`, route(submitForgotPassword));
  ui.get(`${ACCOUNT_PATH}/password-reset`, route(showPasswordReset));
  ui.post(`${ACCOUNT_PATH}/password-reset`, route(submitPasswordReset));
}
