// Time-based lockout of password logins, per account and per client address (OWASP ASVS §6.3.1): after too many
// failures in a window the key is locked for a while (answered 429 with Retry-After), never permanently. The counters
// live in Postgres, so all instances agree. Account keys are user IDs, or the typed login name when no user has it, so
// an unknown name locks exactly like a real one and the answer reveals nothing of which names exist.
//
// Every attempt is counted before its password is checked: checking first and counting after let 30 parallel guesses at
// one account with a limit of 5 all be checked. So a key's budget is of attempts that failed or are still being
// checked; the outcome settles the count: a failure stays counted (and locks the key once the budget is spent), a
// success gives its attempt back and clears the account's failures.
//
// Second-factor failures are a counter of their own (RFC 4226 §7.3, ASVS §6.3.1): a correct password clears the
// password counter only, so an attacker who knows the password cannot guess codes without end by signing in again. The
// factor counter has the lockout policy's maxOtpAttempts; when it locks, the user's password counter is locked with it,
// so the locked user is refused at either step.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import {
  deferWrite,
  getScoped,
  scopeKey,
  scoped,
  takeScoped,
  withScoped,
  type DeferredWrite,
} from '../platform/request-scope.ts';
import type { SignInUserRow } from '../users/queries.ts';
import {
  lockAccountFor,
  lockWhenSpent,
  purgeStaleFailures,
  releaseAttempt,
  releaseSql,
  reserveAttempt,
  reserveAttemptOfLoginName,
  type AttemptGate,
  type Reservation,
  type UserScope,
} from './queries.ts';

export interface LoginSubject {
  /** The user ID, or the lower-cased login name when it names no user. */
  account: string;
  ip: string;
  /** The user counter the attempt counts on: the password's ('account', the default) or the second factor's. */
  counter?: UserScope;
}

const counterOf = (subject: LoginSubject): UserScope => subject.counter ?? 'account';

/** Counts an attempt on the user's counter and the address, all or nothing. Returns 0 when the attempt may be
 *  checked, else the seconds the subject must wait. */
export async function reserveLoginAttempt(db: Db, policy: Config['lockout'], subject: LoginSubject): Promise<number> {
  const max = maxAttempts(policy);
  const keys = await reserveAttempt(db, counterOf(subject), subject.account, subject.ip, max, policy.seconds);
  return settle(db, policy, subject, keys);
}

/** reserveLoginAttempt for the user a login name denotes (the account key is its ID, else the lower-cased name), with
 *  the user read by the same statement; the user is returned whatever its state. With a gate (queries.ts AttemptGate)
 *  its row comes back too; without the row nothing was counted (undefined). */
export async function reserveLoginAttemptOfName(
  db: Db,
  policy: Config['lockout'],
  loginName: string,
  ip: string,
  gate?: AttemptGate,
): Promise<NamedAttempt | undefined> {
  const keys = await reserveAttemptOfLoginName(db, loginName, ip, maxAttempts(policy), policy.seconds, gate);
  const { scope: _scope, key: _key, reserved: _reserved, seconds: _seconds, gate_row: gateRow, ...user } = keys[0]!;
  if (gate && !gateRow) return undefined;
  const subject: LoginSubject = { account: keys.find((k) => k.scope !== 'ip')!.key, ip };
  const wait = await settle(db, policy, subject, keys);
  return { user: user.id ? (user as SignInUserRow) : undefined, subject, wait, gateRow };
}

export interface NamedAttempt {
  user: SignInUserRow | undefined;
  subject: LoginSubject;
  /** 0: the attempt is counted and may be checked; else the seconds the subject must wait (nothing counted). */
  wait: number;
  gateRow?: unknown;
}

/** An attempt counted ahead of its password check (login/password-read-ahead.ts), by `<address>:<login name>`. */
const COUNTED_AHEAD = scopeKey<NamedAttempt>('lockout:counted-attempt');

/** Runs fn with an attempt counted ahead for the sign-in to take (countedAttemptOfName). An attempt the sign-in does
 *  not take (the provider refused the interaction after all) is given back when fn ends. */
export async function withAttemptAhead<T>(db: Db, attempt: NamedAttempt, loginName: string, fn: () => Promise<T>) {
  const id = `${attempt.subject.ip}:${loginName}`;
  return withScoped([scoped(COUNTED_AHEAD, attempt, id)], async (): Promise<T> => {
    try {
      return await fn();
    } finally {
      if (getScoped(COUNTED_AHEAD, id) && attempt.wait === 0)
        await releaseAttempt(db, 'account', attempt.subject.account, attempt.subject.ip, false);
    }
  });
}

/** The attempt of a password check: the one counted ahead in this request, else one counted now. */
export async function countedAttemptOfName(
  db: Db,
  policy: Config['lockout'],
  loginName: string,
  ip: string,
): Promise<NamedAttempt> {
  const ahead = takeScoped(COUNTED_AHEAD, `${ip}:${loginName}`)?.value;
  return ahead ?? (await reserveLoginAttemptOfName(db, policy, loginName, ip))!;
}

const maxAttempts = (policy: Config['lockout']) => ({ account: policy.maxAttempts, ip: policy.ipMaxAttempts });

async function settle(db: Db, policy: Config['lockout'], subject: LoginSubject, keys: Reservation[]): Promise<number> {
  const counter = counterOf(subject);
  const taken = (scope: string) => keys.some((k) => k.scope === scope && k.reserved);
  if (taken(counter) && taken('ip')) return 0;
  // The key that took the attempt gives it back, since the other refused it: nothing is checked.
  if (taken(counter) || taken('ip'))
    await releaseAttempt(db, counter, taken(counter) ? subject.account : null, taken('ip') ? subject.ip : null, false);
  // A key spent by attempts still being checked has no lock yet; if they fail it is locked for the full time.
  return Math.max(0, ...keys.map((k) => k.seconds)) || policy.seconds;
}

/** Settles a failed attempt (it stays counted); returns the seconds of the lock the subject is now under, 0 when
 *  none. */
export async function recordFailure(db: Db, policy: Config['lockout'], subject: LoginSubject): Promise<number> {
  const counter = counterOf(subject);
  const [user, ip] = await Promise.all([
    lockWhenSpent(db, { scope: counter, key: subject.account }, policy.maxAttempts, policy.seconds),
    lockWhenSpent(db, { scope: 'ip', key: subject.ip }, policy.ipMaxAttempts, policy.seconds),
  ]);
  if (counter === 'factor' && user > 0) await lockAccountFor(db, subject.account, user);
  await purgeStaleFailures(db, policy.seconds);
  return Math.max(user, ip);
}

/** Settles a successful attempt: the failures of the user's counter are cleared (the password's or the second
 *  factor's, never the other); the address's stay (only this attempt is given back), so one valid account cannot
 *  reset a guessing run against others. */
export async function recordSuccess(db: Db, subject: LoginSubject): Promise<void> {
  await releaseAttempt(db, counterOf(subject), subject.account, subject.ip, true);
}

/** recordSuccess with the request's other writes, in its unit of work's statement (platform/request-scope.ts), or
 *  at once outside one. */
export async function recordSuccessWithRequest(db: Db, subject: LoginSubject): Promise<void> {
  const write: DeferredWrite = (param) => releaseSql(param, counterOf(subject), subject.account, subject.ip, true);
  if (!deferWrite(write)) await recordSuccess(db, subject);
}
