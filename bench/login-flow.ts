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

export async function passwordLogin(
  base: string,
  app: Credentials,
  user: { loginName: string; password: string },
  scope = 'openid offline_access',
): Promise<LoginResult> {
  const cookies = new Map<string, string>();
  const request = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return res;
  };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  let url = `${base}/oauth/v2/authorize?${query}`;
  let res = await request(url);
  for (let step = 0; step < 12; step++) {
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).toString();
      if (url.startsWith(CALLBACK)) return redeem(base, app, new URL(url).searchParams.get('code')!, verifier);
      res = await request(url);
      continue;
    }
    const html = await res.text();
    const form = /<form\b[^>]*>/i.exec(html);
    if (res.status !== 200 || !form) throw new Error(`login stopped at ${res.status} ${url}`);
    const action = new URL(attributes(form[0]).action ?? url, url).toString();
    const fields = new URLSearchParams();
    for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
      const a = attributes(input[0]);
      if (!a.name) continue;
      if (a.name === 'loginName') fields.set('loginName', user.loginName);
      else if (a.name === 'password') fields.set('password', user.password);
      else if (a.type !== 'checkbox' && a.type !== 'submit') fields.set(a.name, a.value ?? '');
    }
    res = await request(action, {
      method: 'POST',
      body: fields,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' },
    });
    url = action;
  }
  throw new Error('login did not reach the callback within 12 steps');
}

async function redeem(base: string, app: Credentials, code: string, verifier: string): Promise<LoginResult> {
  const res = await fetch(`${base}/oauth/v2/token`, {
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
    }),
  });
  const json = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (!json.access_token) throw new Error(`code redemption failed: ${res.status} ${JSON.stringify(json)}`);
  return { accessToken: json.access_token, refreshToken: json.refresh_token };
}
