// Password guessing and hashing under parallel load, over HTTP against the real server: every attempt is counted before
// its password is checked, the hashing queue is bounded per address and overall, and self-registration is limited per
// address. The attacker binds 127.9.0.x, the legitimate user 127.0.0.1 (Linux routes all of 127.0.0.0/8 to lo).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, formValue } from '../helpers/cookie-jar.ts';
import { requestFrom, type AddressResponse } from '../helpers/from-address.ts';
import { flood } from '../helpers/flood.ts';
import { HASH_CONCURRENCY, hashPassword } from '../../src/users/passwords.ts';
import { until } from '../helpers/load.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Flow {
  jar: CookieJar;
  base: string;
  csrf: string;
}

function harness(env: Record<string, string>) {
  const h = {} as { server: LoginServer; rp: RelyingParty; callback: CallbackServer };
  beforeAll(async () => {
    h.callback = await startCallbackServer();
    h.server = await startLoginServer(h.callback.url, env);
    h.rp = await RelyingParty.discover(h.server.url, h.server.clientId, `${h.callback.url}/cb`);
  });
  afterAll(async () => {
    await h.server?.stop();
    await h.callback?.close();
  });
  return h;
}

async function begin(rp: RelyingParty, params: Record<string, string> = {}): Promise<Flow> {
  const jar = new CookieJar();
  const page = await jar.follow((await rp.start(params)).url);
  expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
  return { jar, base: page.url, csrf: formValue(page.body, 'csrf')! };
}

/** The headers of a same-origin form post of the flow's browser. */
const postHeaders = (server: LoginServer, flow: Flow) => ({
  ...FORM,
  origin: server.url,
  'sec-fetch-site': 'same-origin',
  cookie: [...flow.jar.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
});

/** A form post of the flow's browser, sent from `address`. */
function postFrom(
  server: LoginServer,
  address: string,
  flow: Flow,
  step: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<AddressResponse> {
  return requestFrom(address, `${flow.base}/${step}`, {
    method: 'POST',
    headers: { ...postHeaders(server, flow), ...headers },
    body: new URLSearchParams({ csrf: flow.csrf, ...form }).toString(),
  });
}

/** From the server's metrics: argon2id runs for network requests so far, requests shed by the global bound and
 *  refused over an address's share; password logins answered busy (the global bound) and limited (the share). */
async function hashes(
  server: LoginServer,
): Promise<{ run: number; shed: number; share: number; busy: number; limited: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const read = (metric: string, label: string, value: string) =>
    Number(new RegExp(`^${metric}\\{${label}="${value}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const outcome = (value: string) => read('gatehouse_password_hashes_total', 'outcome', value);
  const result = (value: string) => read('gatehouse_logins_total', 'result', value);
  return {
    run: outcome('run'),
    shed: outcome('shed'),
    share: outcome('share'),
    busy: result('busy'),
    limited: result('limited'),
  };
}

const count = (responses: AddressResponse[], status: number) => responses.filter((r) => r.status === status).length;

describe('parallel guesses are counted before they are checked', () => {
  const h = harness({
    GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '5',
    GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '10',
    GATEHOUSE_LOCKOUT_SECONDS: '60',
    GATEHOUSE_HASH_PER_ADDRESS: '1000',
  });

  it('30 parallel wrong passwords for one account: at most 5 are checked, the rest get 429; then the right one is refused too', async () => {
    const { server, rp } = h;
    await server.addUser('target', 'the right password');
    const flow = await begin(rp);
    const before = await hashes(server);
    // from several addresses, so only the account's budget applies
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postFrom(server, `127.9.1.${i + 1}`, flow, 'password', { loginName: 'target', password: `wrong guess ${i}` }),
      ),
    );
    const checked = (await hashes(server)).run - before.run;
    expect(checked).toBeLessThanOrEqual(5);
    expect(count(answers, 401) + count(answers, 429)).toBe(30);
    expect(count(answers, 401)).toBeLessThanOrEqual(5);
    for (const locked of answers.filter((a) => a.status === 429)) {
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(locked.body).toContain('Too many failed attempts.');
    }
    const right = await postFrom(server, '127.9.1.100', flow, 'password', {
      loginName: 'target',
      password: 'the right password',
    });
    expect(right.status).toBe(429);
    expect((await hashes(server)).run - before.run).toBe(checked);
  });

  it('60 parallel wrong passwords from one address across many accounts: at most the address limit (10) are checked', async () => {
    const { server, rp } = h;
    await server.addUser('sprayed-0', 'sprayed password 0');
    const flow = await begin(rp);
    const before = await hashes(server);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        postFrom(server, '127.9.2.1', flow, 'password', { loginName: `sprayed-${i}`, password: `spray ${i}` }),
      ),
    );
    expect((await hashes(server)).run - before.run).toBeLessThanOrEqual(10);
    expect(count(answers, 401)).toBeLessThanOrEqual(10);
    expect(count(answers, 429)).toBeGreaterThanOrEqual(50);
    // a right password from that address is refused while it is locked; from another address it works
    expect(
      (
        await postFrom(server, '127.9.2.1', flow, 'password', {
          loginName: 'sprayed-0',
          password: 'sprayed password 0',
        })
      ).status,
    ).toBe(429);
    const elsewhere = await begin(rp);
    expect(
      (
        await postFrom(server, '127.0.0.1', elsewhere, 'password', {
          loginName: 'sprayed-0',
          password: 'sprayed password 0',
        })
      ).status,
    ).toBe(303);
  });
});

describe('hashing is bounded per address and overall', () => {
  const h = harness({ GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '100000', GATEHOUSE_REGISTRATION_PER_IP: '0' });
  const FLOOD = 300;
  beforeAll(async () => {
    await h.server.addUser('victim', 'victim password 1');
    await hashPassword('warm-up');
  });

  /** How long the victim's login may take: half the wait behind the flood's hashes (FLOOD of them, HASH_CONCURRENCY
   *  at once), with the machine's hash timed just before the flood, under the load of the moment (the suite runs
   *  files in parallel: a hash timed before it took 23 ms where the login under the flood then took 2.6 s); and 1 s
   *  at least, for the rest of a login under load. */
  async function boundNow(): Promise<number> {
    const rounds = 2;
    const started = performance.now();
    await Promise.all(Array.from({ length: HASH_CONCURRENCY * rounds }, (_, i) => hashPassword(`timed ${i}`)));
    const hashMs = (performance.now() - started) / rounds;
    return Math.max(1000, ((FLOOD / HASH_CONCURRENCY) * hashMs) / 2);
  }

  /** The legitimate user's password post from 127.0.0.1, timed, while another process has `FLOOD` posts of
   *  `form(i)` to `step` of `flow` in flight from `address`. */
  async function loginDuring(flow: Flow, address: string, step: string, form: (i: number) => Record<string, string>) {
    const { server, rp } = h;
    const victim = await begin(rp);
    const boundMs = await boundNow();
    const attack = flood(
      address,
      `${flow.base}/${step}`,
      postHeaders(server, flow),
      Array.from({ length: FLOOD }, (_, i) => new URLSearchParams({ csrf: flow.csrf, ...form(i) }).toString()),
    );
    // the flood is under way once the server has answered (or shed) some of it
    await until(
      async () => {
        const n = await hashes(server);
        return n.run + n.shed + n.share > 0;
      },
      20_000,
      'flood started',
    );
    const started = performance.now();
    const login = await postFrom(server, '127.0.0.1', victim, 'password', {
      loginName: 'victim',
      password: 'victim password 1',
    });
    const ms = performance.now() - started;
    return { ms, boundMs, status: login.status, ...(await attack) };
  }

  it(`a login does not wait behind ${FLOOD} password posts in flight from one address; what is over its share gets 429`, async () => {
    const { server, rp } = h;
    const before = await hashes(server);
    const { ms, boundMs, status, statuses, samples } = await loginDuring(
      await begin(rp),
      '127.9.3.1',
      'password',
      (i) => ({
        loginName: `flood-${i}`,
        password: `flood ${i}`,
      }),
    );
    expect(status).toBe(303);
    expect(ms).toBeLessThan(boundMs);
    // the address's own excess, not the server's failure: 429, never 503, so no address raises an outage alert
    expect(statuses[503]).toBeUndefined();
    expect((statuses[401] ?? 0) + (statuses[429] ?? 0)).toBe(FLOOD);
    expect(statuses[429]).toBeGreaterThan(FLOOD / 2);
    expect(samples[429]!.headers['retry-after']).toBe('1');
    expect(samples[429]!.body).toContain('Too many password checks from your network are in progress.');
    // counted as the address's excess, never as the server's overload, which the operator's alert watches
    const after = await hashes(server);
    expect(after.share - before.share).toBe(statuses[429]);
    expect(after.limited - before.limited).toBe(statuses[429]);
    expect(after.shed - before.shed).toBe(0);
    expect(after.busy - before.busy).toBe(0);
  });

  it(`a login does not wait behind ${FLOOD} registrations with a taken name from one address; none of them hashes`, async () => {
    const { server, rp } = h;
    const before = await hashes(server);
    const form = {
      firstName: 'F',
      lastName: 'L',
      email: 'f@example.com',
      userName: 'victim',
      password: 'flood password',
    };
    const { ms, boundMs, status, statuses, samples } = await loginDuring(
      await begin(rp, { prompt: 'create' }),
      '127.9.3.2',
      'register',
      () => form,
    );
    expect(status).toBe(303);
    expect(ms).toBeLessThan(boundMs);
    expect(statuses[409]).toBeGreaterThan(0);
    expect((statuses[409] ?? 0) + (statuses[429] ?? 0)).toBe(FLOOD);
    if (statuses[429]) expect(samples[429]!.body).toContain('Too many password checks from your network');
    // the victim's one verification, nothing for the flood
    expect((await hashes(server)).run - before.run).toBe(1);
  });
});

describe("the server's own hashing bound is answered 503", () => {
  // every address's share is larger than all places together: only the global bound can refuse
  const h = harness({
    GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '100000',
    GATEHOUSE_HASH_PER_ADDRESS: '100000',
    GATEHOUSE_HASH_QUEUE_MAX: '0',
  });
  const FLOOD = 60;

  it(`${FLOOD} password posts at once with the queue full: what is over the global bound gets 503 with Retry-After, in German too`, async () => {
    const { server, rp } = h;
    const flow = await begin(rp);
    const bodies = (locale: string) =>
      Array.from({ length: FLOOD / 2 }, (_, i) =>
        new URLSearchParams({ csrf: flow.csrf, loginName: `global-${locale}-${i}`, password: 'x' }).toString(),
      );
    const [en, de] = await Promise.all(
      ['en', 'de'].map((locale, i) =>
        flood(
          `127.9.4.${i + 1}`,
          `${flow.base}/password`,
          { ...postHeaders(server, flow), 'accept-language': locale },
          bodies(locale),
        ),
      ),
    );
    for (const { statuses } of [en!, de!]) {
      expect(statuses[429]).toBeUndefined();
      expect((statuses[401] ?? 0) + (statuses[503] ?? 0)).toBe(FLOOD / 2);
    }
    const shed = (en!.statuses[503] ?? 0) + (de!.statuses[503] ?? 0);
    const after = await hashes(server);
    expect(after.shed).toBe(shed);
    expect(after.busy).toBe(shed);
    expect(after.share + after.limited).toBe(0);
    const sample = en!.samples[503] ?? de!.samples[503];
    expect(sample!.headers['retry-after']).toBe('1');
    if (en!.samples[503]) expect(en!.samples[503]!.body).toContain('The server is busy right now.');
    if (de!.samples[503]) expect(de!.samples[503]!.body).toContain('Der Server ist gerade ausgelastet.');
    expect((en!.statuses[503] ?? 0) + (de!.statuses[503] ?? 0)).toBeGreaterThan(FLOOD / 2);
  });
});

describe('self-registration is limited per address', () => {
  // 127.0.0.1 plays a trusted reverse proxy: its X-Forwarded-For names the client; anyone else's is ignored
  const h = harness({ GATEHOUSE_REGISTRATION_PER_IP: '2', GATEHOUSE_TRUSTED_PROXIES: '127.0.0.1' });
  let n = 0;

  async function register(
    address: string,
    headers: Record<string, string> = {},
    params: Record<string, string> = {},
  ): Promise<{ answer: AddressResponse; userName: string }> {
    const flow = await begin(h.rp, { prompt: 'create', ...params });
    const userName = `reg-limit-${n++}`;
    const answer = await postFrom(
      h.server,
      address,
      flow,
      'register',
      { firstName: 'R', lastName: 'L', email: `${userName}@example.com`, userName, password: 'registration password' },
      headers,
    );
    return { answer, userName };
  }

  it('answers the third registration from one address within the hour with 429, Retry-After and a message on the form', async () => {
    for (let i = 0; i < 2; i++) expect((await register('127.9.4.1')).answer.status).toBe(303);
    // a made-up X-Forwarded-For from an address that is not a trusted proxy changes nothing
    const refused = await register('127.9.4.1', { 'x-forwarded-for': '203.0.113.9' });
    expect(refused.answer.status).toBe(429);
    expect(Number(refused.answer.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(refused.answer.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(refused.answer.body).toContain(
      'role="alert">Too many registration attempts from your network. Try again in 60 minutes.</p>',
    );
    expect(refused.answer.body).toContain('id="firstName"');
    expect(await h.server.findUser(refused.userName)).toBeUndefined();
    const german = await register('127.9.4.1', { 'accept-language': 'de' }, { ui_locales: 'de' });
    expect(german.answer.status).toBe(429);
    expect(german.answer.body).toContain(
      'Zu viele Registrierungsversuche aus Ihrem Netzwerk. Versuchen Sie es in 60 Minuten erneut.',
    );
    // another address is not affected
    expect((await register('127.9.4.2')).answer.status).toBe(303);
  });

  it('counts the client named by a trusted proxy, not the proxy', async () => {
    const behind = (client: string) => register('127.0.0.1', { 'x-forwarded-for': client });
    expect((await behind('203.0.113.7')).answer.status).toBe(303);
    expect((await behind('203.0.113.7')).answer.status).toBe(303);
    expect((await behind('203.0.113.7')).answer.status).toBe(429);
    expect((await behind('203.0.113.8')).answer.status).toBe(303);
  });
});
