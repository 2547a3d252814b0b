// Second factors on the real login pages (HTTP with cookies) and openid-client as the app: a user with TOTP is asked
// for a code after the password, a code works once, wrong codes count toward the lockout, forceMfa makes a user without
// a factor enroll (QR code, recovery codes shown once) and a user with one cannot skip it, a recovery code works once,
// and amr in the ID token and introspection says what was used.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  addUser,
  addUserWithOtp,
  byId,
  nextCode,
  PASSWORD,
  relyingParty,
  setLoginPolicy,
  SignIn,
  wrongCode,
} from './helpers.ts';

describe('the second-factor step of the login', () => {
  let server: TestServer;
  let admin: string;
  let rp: Awaited<ReturnType<typeof relyingParty>>;

  beforeAll(async () => {
    // a small account budget, so that the lockout test needs few codes
    const started = await startServerWithAdminKey({ GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '3' });
    server = started.server;
    admin = started.adminToken;
    rp = await relyingParty(server);
  });
  afterAll(async () => server?.stop());
  afterEach(async () => {
    await setLoginPolicy(server, admin, {});
  });

  const userWithOtp = (prefix: string) => addUserWithOtp(server, prefix);

  async function signIn(userName: string) {
    const start = await rp.start();
    const signIn = await new SignIn(server).start(start.url);
    return { signIn: await signIn.password(userName), start };
  }

  it('asks a user with TOTP for a code after the password; amr is pwd otp mfa; the same code is refused after', async () => {
    const { userName, totp } = await userWithOtp('otp');
    const first = await signIn(userName);
    expect(first.signIn.status).toBe(200);
    expect(first.signIn.callback).toBeUndefined();
    expect(first.signIn.page).toContain('autocomplete="one-time-code"');
    const code = nextCode(totp);
    await first.signIn.post('second-factor', { code });
    expect(first.signIn.callback?.searchParams.get('code')).toBeTruthy();
    const { claims, introspected } = await rp.finish(first.signIn.callback!, first.start.verifier);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(introspected.amr).toEqual(['pwd', 'otp', 'mfa']);

    // RFC 6238 §5.2: the code of a time step is accepted once
    const again = await signIn(userName);
    await again.signIn.post('second-factor', { code });
    expect(again.signIn.status).toBe(401);
    expect(again.signIn.callback).toBeUndefined();
    expect(again.signIn.page).toContain('The code is incorrect.');
  });

  it('a user without a factor signs in with the password alone, amr pwd', async () => {
    const userName = await addUser(server, 'plain');
    const { signIn: done, start } = await signIn(userName);
    expect(done.callback).toBeDefined();
    expect((await rp.finish(done.callback!, start.verifier)).claims.amr).toEqual(['pwd']);
  });

  it('wrong codes count toward the lockout: then even the right code is answered 429 with Retry-After', async () => {
    const { userName, totp } = await userWithOtp('locked');
    const { signIn: step } = await signIn(userName);
    const wrong = wrongCode(totp);
    await step.post('second-factor', { code: wrong });
    expect(step.status).toBe(401);
    await step.post('second-factor', { code: wrong });
    expect(step.status).toBe(401);
    await step.post('second-factor', { code: wrong });
    expect(step.status).toBe(429);
    await step.post('second-factor', { code: nextCode(totp) });
    expect(step.status).toBe(429);
    expect(step.page).toContain('Too many failed attempts');
    // the account itself is locked: the password is not even checked now
    const { signIn: next } = await signIn(userName);
    expect(next.status).toBe(429);
  });

  it('forceMfa: a user without a factor enrolls TOTP, gets ten recovery codes once, and cannot skip the code later', async () => {
    await setLoginPolicy(server, admin, { forceMfa: true });
    const userName = await addUser(server, 'forced');
    const { signIn: enroll, start } = await signIn(userName);
    expect(enroll.status).toBe(200);
    expect(enroll.callback).toBeUndefined();
    // the QR code is an inline SVG drawn on the server; the key is shown for typing by hand
    expect(enroll.page).toMatch(/<svg [^>]*viewBox="0 0 \d+ \d+"/);
    expect(enroll.page).toMatch(/<path d="(M\d+ \d+h1v1h-1z)+"/);
    const secret = byId(enroll.page, 'otp-secret')!.replaceAll(' ', '');
    expect(enroll.page).toContain('href="otpauth://totp/');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6 });
    const wrong = wrongCode(totp);
    await enroll.post('factor-setup', { code: wrong });
    expect(enroll.status).toBe(401);
    expect(enroll.page).toContain('otp-secret');
    await enroll.post('factor-setup', { code: totp.generate() });
    expect(enroll.status).toBe(200);
    const codes = [...enroll.page.matchAll(/<li><code>([A-Z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const doneTicket = /name="ticket" value="([^"]*)"/.exec(enroll.page)![1]!;
    await enroll.post('factor-done', {});
    expect(enroll.callback).toBeDefined();
    expect((await rp.finish(enroll.callback!, start.verifier)).claims.amr).toEqual(['pwd', 'otp', 'mfa']);

    // Now the user has a factor: the password leads to the code, and the finished step's ticket is no way around it
    const { signIn: later } = await signIn(userName);
    expect(later.page).toContain('autocomplete="one-time-code"');
    const skipped = await new SignIn(server).start((await rp.start()).url);
    await skipped.password(userName);
    await skipped.post('factor-done', {}, doneTicket);
    expect(skipped.status).toBe(400);
    expect(skipped.callback).toBeUndefined();

    // a recovery code stands in for the authenticator, once
    await later.post('second-factor', { use: 'recovery' });
    expect(later.page).toContain('name="code"');
    expect(later.page).toContain('autocomplete="off"');
    const laterStart = await rp.start();
    const recovered = await new SignIn(server).start(laterStart.url);
    await recovered.password(userName);
    await recovered.post('second-factor', { use: 'recovery' });
    await recovered.post('second-factor', { code: codes[0]! });
    expect(recovered.callback).toBeDefined();
    expect((await rp.finish(recovered.callback!, laterStart.verifier)).claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    await later.post('second-factor', { code: codes[0]! });
    expect(later.status).toBe(401);
    // typed in lower case and without the dash, another code works
    await later.post('second-factor', { code: codes[1]!.toLowerCase().replace('-', '') });
    expect(later.callback).toBeDefined();
  });

  it('forceMfa also holds for a user who registers', async () => {
    await setLoginPolicy(server, admin, { forceMfa: true });
    const start = await rp.start({ prompt: 'create' });
    const register = await new SignIn(server).start(start.url);
    await register.post('register', {
      firstName: 'New',
      lastName: 'Comer',
      email: 'new@example.com',
      userName: `newcomer-${process.pid}`,
      password: PASSWORD,
    });
    expect(register.status).toBe(200);
    expect(register.page).toContain('id="otp-secret"');
  });
});
