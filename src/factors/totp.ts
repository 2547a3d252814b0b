// RFC 6238 TOTP as authenticator apps expect it: HMAC-SHA-1, 6 digits, 30-second steps, a base32 secret of 160 bits
// (RFC 4226 §4 R6), shared through an otpauth:// URI (the Key Uri Format of Google Authenticator).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const STEP_SECONDS = 30;
const DIGITS = 6;
/** Codes of the step before and after the current one are accepted too: clocks drift (RFC 6238 §5.2). */
const WINDOW = 1;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newTotpSecret(): string {
  const bytes = randomBytes(20);
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{5}/g) ?? []).map((chunk) => BASE32[Number.parseInt(chunk, 2)]).join('');
}

function decodeBase32(secret: string): Buffer {
  let bits = '';
  for (const char of secret) bits += BASE32.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
}

export const currentStep = (now = Date.now()) => Math.floor(now / 1000 / STEP_SECONDS);

/** RFC 4226 §5.3: the dynamically truncated HMAC of the step counter. */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', decodeBase32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(value % 10 ** DIGITS).padStart(DIGITS, '0');
}

/** The time step the code belongs to, within the window around now; undefined for a wrong code. */
export function matchingStep(secret: string, code: string, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const current = currentStep(now);
  let found: number | undefined;
  // every step of the window is computed, so the time taken says nothing about which matched
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    if (timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(code))) found ??= step;
  }
  return found;
}

/** The otpauth:// URI an authenticator app scans: issuer and account name label the entry. */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(DIGITS), period: '30' });
  return `otpauth://totp/${label}?${params.toString().replaceAll('+', '%20')}`;
}
