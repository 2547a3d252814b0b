// The login pages: interaction routes under the provider's interactions URL /ui/login/:uid (the
// interaction cookie is scoped to that path), registered in the pages' scope (web/plugin.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SharedRateLimiter } from '../platform/shared-rate-limit.ts';
import type { PageDeps } from '../web/page-deps.ts';
import type { LoginDeps } from './interaction.ts';
import { showLoginName, showStart, submitLoginName, submitPassword, submitSelect } from './login-flow.ts';
import { showRegister, submitRegister } from './register-flow.ts';
import { submitConsent } from './consent-flow.ts';
import { submitRequiredChange } from './password-change-flow.ts';
import { showPasskey, submitPasskey } from './passkey-flow.ts';
import { submitFactorDone, submitFactorSetup, submitSecondFactor } from './second-factor-flow.ts';
import { continueWithIdp, JWT_AUTHORIZE_PATH, receiveJwt } from './jwt-idp-flow.ts';
import { IdpKeyCache } from '../idps/jwt-token.ts';
import { unitOfWork } from '../oidc/write-behind.ts';
import { withLoginPageRows } from './page-read-ahead.ts';

export function registerLoginRoutes(ui: FastifyInstance, web: PageDeps): void {
  const login: LoginDeps = {
    ...web,
    idpKeys: new IdpKeyCache(web.config.allowPrivateFetch),
    // Counted in the database, so N instances behind a balancer admit no more than one
    registrations: new SharedRateLimiter(web.db, 'registration-ip', {
      limit: web.config.registrationPerIp,
      windowSeconds: 3600,
    }),
  };
  const route =
    (handler: (d: LoginDeps, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      unitOfWork(login.db, () => handler(login, request, reply));
  // The pages that show the login name form: their interaction and IdPs read with one statement.
  const pageRoute =
    (handler: (d: LoginDeps, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) =>
      withLoginPageRows(login.db, request.params.uid, login.instance.id, () => route(handler)(request, reply));

  ui.get('/ui/login/:uid', pageRoute(showStart));
  ui.get('/ui/login/:uid/login-name', pageRoute(showLoginName));
  ui.post('/ui/login/:uid/login-name', route(submitLoginName));
  ui.post('/ui/login/:uid/password', route(submitPassword));
  ui.post('/ui/login/:uid/select', route(submitSelect));
  ui.get('/ui/login/:uid/register', route(showRegister));
  ui.post('/ui/login/:uid/register', route(submitRegister));
  ui.post('/ui/login/:uid/consent', route(submitConsent));
  ui.post('/ui/login/:uid/password-change', route(submitRequiredChange));
  ui.get('/ui/login/:uid/passkey', route(showPasskey));
  ui.post('/ui/login/:uid/passkey', route(submitPasskey));
  ui.post('/ui/login/:uid/second-factor', route(submitSecondFactor));
  ui.post('/ui/login/:uid/factor-setup', route(submitFactorSetup));
  ui.post('/ui/login/:uid/factor-done', route(submitFactorDone));
  ui.get('/ui/login/:uid/idp/:idpId', route(continueWithIdp));
  ui.get(JWT_AUTHORIZE_PATH, route(receiveJwt));
}
