// A password login at the HTTP level, as a browser without scripts does it: authorize, fill in whatever forms the
// login pages show (their hidden fields included), follow redirects to the callback, redeem the code.
import { createHash, randomBytes } from 'node:crypto';
import { CALLBACK, type Credentials } from './gatehouse.ts';

const attributes = (tag: string) =>
  Object.fromEntries([...tag.matchAll(/([a-zA-Z-]+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), decode(m[2]!)]));
const decode = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

export interface LoginResult {
  accessToken: string;
  refreshToken?: string;
}

/** A browser without scripts: its cookies, kept across flows (a silent re-authentication needs the session). */
export class BenchBrowser {
  readonly #cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size) headers.set('cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return res;
  }
}

/** An authorization code for the app, its PKCE verifier with it: the authorization request, the login pages if
 *  they are shown (a browser with a session and prompt=none sees none), the redirects up to the callback. */
export async function authorizationCode(
  base: string,
  app: Credentials,
  browser: BenchBrowser,
  user: { loginName: string; password: string } | undefined,
  params: Record<string, string>,
): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  });
  const url = await throughLogin(base, browser, `${base}/oauth/v2/authorize?${query}`, user, (u) =>
    u.startsWith(CALLBACK),
  );
  const code = new URL(url).searchParams.get('code');
  if (!code) throw new Error(`no code at the callback: ${url}`);
  return { code, verifier };
}

/** Follows a browser from `start` through redirects and the login pages (their forms filled in for `user`, hidden
 *  fields included) until a redirect leads where `arrived` says it wanted to go; returns that URL, not requested. */
export async function throughLogin(
  base: string,
  browser: BenchBrowser,
  start: string,
  user: { loginName: string; password: string } | undefined,
  arrived: (url: string) => boolean,
): Promise<string> {
  let url = start;
  let res = await browser.request(url);
  for (let step = 0; step < 12; step++) {
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).toString();
      if (arrived(url)) return url;
      res = await browser.request(url);
      continue;
    }
    const html = await res.text();
    const form = /<form\b[^>]*>/i.exec(html);
    if (res.status !== 200 || !form || !user) throw new Error(`login stopped at ${res.status} ${url}`);
    const action = new URL(attributes(form[0]).action ?? url, url).toString();
    const fields = new URLSearchParams();
    for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
      const a = attributes(input[0]);
      if (!a.name) continue;
      if (a.name === 'loginName') fields.set('loginName', user.loginName);
      else if (a.name === 'password') fields.set('password', user.password);
      else if (a.type !== 'checkbox' && a.type !== 'submit') fields.set(a.name, a.value ?? '');
    }
    res = await browser.request(action, {
      method: 'POST',
      body: fields,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' },
    });
    url = action;
  }
  throw new Error(`login did not arrive within 12 steps from ${start}`);
}

/** A whole password login in a new browser: authorize, the login pages, the code redeemed. */
export async function passwordLogin(
  base: string,
  app: Credentials,
  user: { loginName: string; password: string },
  scope = 'openid offline_access',
  browser = new BenchBrowser(),
): Promise<LoginResult> {
  const { code, verifier } = await authorizationCode(base, app, browser, user, { scope });
  return redeem(base, app, code, verifier);
}

/** What a single-page app does on every page load: authorize with the browser's session and
 *  prompt=none, then redeem the code. */
export async function silentReauthentication(base: string, app: Credentials, browser: BenchBrowser): Promise<void> {
  const { code, verifier } = await authorizationCode(base, app, browser, undefined, {
    scope: 'openid',
    prompt: 'none',
  });
  await redeem(base, app, code, verifier);
}

/** The token request that redeems a code (the authorization-code exchange scenario sends it on its own). */
export function codeRedemption(app: Credentials, code: string, verifier: string): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    }).toString(),
  };
}

async function redeem(base: string, app: Credentials, code: string, verifier: string): Promise<LoginResult> {
  const res = await fetch(`${base}/oauth/v2/token`, codeRedemption(app, code, verifier));
  const json = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (!json.access_token) throw new Error(`code redemption failed: ${res.status} ${JSON.stringify(json)}`);
  return { accessToken: json.access_token, refreshToken: json.refresh_token };
}
