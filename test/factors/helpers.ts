// Shared by the second-factor tests: users, the login's steps after the password, and TOTP codes from
// an independent TOTP library (otpauth), so the server's RFC 6238 is checked against another implementation.
import * as client from 'openid-client';
import * as OTPAuth from 'otpauth';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { Browser, CALLBACK, createOidcApp, defaultOrgId, rpConfig } from '../helpers/oidc.ts';
import { callRest, okJson } from '../helpers/management.ts';
import type { TestServer } from '../helpers/server.ts';
import { humanToken } from '../helpers/tokens.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';

export const PASSWORD = 'correct horse battery';

let counter = 0;
/** A new human user of the default org; returns its user name. */
export async function addUser(server: TestServer, prefix: string): Promise<string> {
  const userName = `${prefix}-${process.pid}-${++counter}`;
  const input = registrationSchema.parse({
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `${userName}@example.com`,
    userName,
    password: PASSWORD,
  });
  await registerHuman(server.db, await defaultOrgId(server), input, 'en');
  return userName;
}

export const totpOf = (url: string) => OTPAuth.URI.parse(url) as OTPAuth.TOTP;

/** A user with a confirmed TOTP authenticator, added over the API with a token from before it had one (the token,
 *  and its session, are returned too). */
export async function addUserWithOtp(server: TestServer, prefix: string) {
  const userName = await addUser(server, prefix);
  const token = await humanToken(server, userName, PASSWORD);
  const call = (method: string, path: string, body?: Record<string, unknown>) =>
    callRest(server.url, { service: AuthService, method, rest: ['POST', path], body }, { token });
  const added = okJson<{ url: string }>(await call('AddMyAuthFactorOTP', '/auth/v1/users/me/auth_factors/otp'));
  const totp = totpOf(added.url);
  okJson(await call('VerifyMyAuthFactorOTP', '/auth/v1/users/me/auth_factors/otp/_verify', { code: totp.generate() }));
  return { userName, totp, token };
}

/** A six-digit code that is not the current one. */
export const wrongCode = (totp: OTPAuth.TOTP) => String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0');

/** The code of the next time step: the current one may have been used already (a code is accepted once). */
export const nextCode = (totp: OTPAuth.TOTP) => totp.generate({ timestamp: Date.now() + 30_000 });

/** A hidden field or the text of an element with an ID. */
export const field = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1];
export const byId = (page: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1];

/** One sign-in through the real login pages, step by step; the test answers each page. */
export class SignIn {
  readonly browser: Browser;
  readonly #server: TestServer;
  loginUrl = '';
  page = '';
  status = 0;
  headers?: Headers;
  /** Where the browser left the server (the app's callback), once the sign-in is complete. */
  callback?: URL;

  constructor(server: TestServer) {
    this.#server = server;
    this.browser = new Browser(server);
  }

  async start(url: URL | string): Promise<this> {
    const first = await this.browser.follow(String(url));
    this.loginUrl = first.url;
    this.page = await first.response.text();
    return this;
  }

  async password(loginName: string, password = PASSWORD): Promise<this> {
    return this.#settle(await this.browser.submitLogin(this.loginUrl, loginName, password));
  }

  /** Posts a form of the current page to `step`, with its CSRF token and ticket. */
  async post(step: string, fields: Record<string, string>, ticket = field(this.page, 'ticket') ?? ''): Promise<this> {
    const csrf = field(this.page, 'csrf') ?? '';
    const posted = await this.browser.follow(`${this.loginUrl}/${step}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(this.#server.config.issuer).origin,
      },
      body: new URLSearchParams({ csrf, ticket, ...fields }),
    });
    return this.#settle(posted);
  }

  async #settle(result: { response: Response; url: string }): Promise<this> {
    this.status = result.response.status;
    this.headers = result.response.headers;
    if (result.response.status >= 300 && result.response.status < 400) this.callback = new URL(result.url);
    else this.page = await result.response.text();
    return this;
  }
}

/** A confidential app and openid-client for it: authorization URL, code redemption, introspection. */
export async function relyingParty(server: TestServer) {
  const app = await createOidcApp(server, { authMethod: 'basic' });
  const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
  return {
    async start(params: Record<string, string> = {}) {
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: CALLBACK,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...params,
      });
      return { url, verifier };
    },
    async finish(callback: URL, verifier: string) {
      const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
      const introspected = await client.tokenIntrospection(config, tokens.access_token);
      return { claims: tokens.claims()!, introspected, accessToken: tokens.access_token };
    },
  };
}

export const ALL_ALLOWED = {
  allowUsernamePassword: true,
  allowRegister: true,
  allowExternalIdp: true,
  forceMfa: false,
  passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
};

/** Sets the login policy; a policy already so is fine (the API answers "not changed", 400 FAILED_PRECONDITION). */
export async function setLoginPolicy(server: TestServer, adminToken: string, policy: Record<string, unknown>) {
  const outcome = await callRest(
    server.url,
    {
      service: AdminService,
      method: 'UpdateLoginPolicy',
      rest: ['PUT', '/admin/v1/policies/login'],
      body: { ...ALL_ALLOWED, ...policy },
    },
    { token: adminToken },
  );
  if (!outcome.ok && outcome.code === 9) return {};
  return okJson(outcome);
}
