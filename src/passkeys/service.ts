// Passkeys and security keys: WebAuthn registration and sign-in with @simplewebauthn/server. The RP ID
// is the issuer's host and the expected origin the issuer's origin; attestation is `none` (no device attestation
// is checked, so none is asked for). Every credential is discoverable and verifies its user, so one registration
// serves passwordless sign-in and the second factor alike.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { UserRow } from '../users/queries.ts';
import { setFactorKind } from '../factors/queries.ts';
import {
  deleteCredential,
  findCredentialByCredentialId,
  insertCredential,
  listCredentialsOfUser,
  putChallenge,
  recordCredentialUse,
  takeChallenge,
  type ChallengePurpose,
  type CredentialRow,
} from './queries.ts';

export type { CredentialRow };

/** Who the credentials are for: the issuer's host and origin, and the name authenticators show. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** `name` is what authenticators show at registration; sign-in needs none. */
export function relyingParty(issuer: string, name = ''): RelyingParty {
  const url = new URL(issuer);
  return { id: url.hostname, origin: url.origin, name };
}

/** How long a ceremony may take: the browser's timeout, and the life of its challenge. */
const CEREMONY_SECONDS = 300;
export const PASSKEY_NAME_MAX = 200;
/** The kind in users.factor_kinds (second-factors/registry.ts) while the user has a passkey: ZITADEL's `u2f`. */
export const WEBAUTHN_KIND = 'u2f';

/** What the user used, for the session's amr (RFC 8176): a synced (backup-eligible) passkey is a software-secured
 *  key (`swk`), one bound to its device hardware-secured (`hwk`); `user` as ZITADEL reports WebAuthn. */
export function passkeyAmr(credential: Pick<CredentialRow, 'backup_eligible'>): string[] {
  return [credential.backup_eligible ? 'swk' : 'hwk', 'user'];
}

/** The signed-in user's ceremony binding: the login interaction's ID or the account page's session ID. */
export interface Ceremony {
  binding: string;
}

// Loaded on the first ceremony, not at start: the library and its CBOR and ASN.1 parsers hold about 8 MB that a
// deployment without passkeys never needs (docs/performance.md, "Memory").
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

const unverified = () => invalidArgument('The passkey could not be verified', 'WEBAUTHN-4fk2d');

export async function startRegistration(
  db: Db,
  rp: RelyingParty,
  user: UserRow,
  loginName: string,
  ceremony: Ceremony,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await listCredentialsOfUser(db, user.id);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: loginName,
    userID: new TextEncoder().encode(user.id),
    userDisplayName: user.display_name ?? loginName,
    timeout: CEREMONY_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(db, 'register', ceremony, options.challenge, user.id);
  return options;
}

export async function finishRegistration(
  db: Db,
  rp: RelyingParty,
  user: UserRow,
  ceremony: Ceremony,
  input: { name: string; credential: string },
): Promise<{ id: string; details: Details }> {
  const name = validName(input.name);
  const response = parseCredential<RegistrationResponseJSON>(input.credential, 'attestationObject');
  const pending = await takeChallenge(db, 'register', ceremony.binding);
  if (!pending || pending.user_id !== user.id) throw unverified();
  const verification = await (await webauthn())
    .verifyRegistrationResponse({
      response,
      expectedChallenge: pending.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    })
    .catch(() => ({ verified: false as const, registrationInfo: undefined }));
  if (!verification.verified) throw unverified();
  const info = verification.registrationInfo;
  const id = newId();
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.passkeyAdded,
      payload: { webAuthNTokenId: id, webAuthNTokenName: name },
      resourceOwner: user.org_id,
      creator: user.id,
    });
    await insertCredential(tx, {
      id,
      user_id: user.id,
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      sign_count: info.credential.counter,
      backup_eligible: info.credentialDeviceType === 'multiDevice',
      backup_state: info.credentialBackedUp,
      transports: info.credential.transports ?? [],
      name,
    });
    await setFactorKind(tx, user.id, WEBAUTHN_KIND, true);
    return { id, details: changedDetails(event) };
  });
}

/** Passwordless: any discoverable credential of this RP, with user verification. */
export async function startPasswordless(
  db: Db,
  rp: RelyingParty,
  ceremony: Ceremony,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return startAssertion(db, rp, 'sign_in', ceremony, null, []);
}

/** The second factor of a known user: only that user's credentials are offered. */
export async function startSecondFactor(
  db: Db,
  rp: RelyingParty,
  userId: string,
  ceremony: Ceremony,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const credentials = await listCredentialsOfUser(db, userId);
  return startAssertion(db, rp, 'second_factor', ceremony, userId, credentials);
}

async function startAssertion(
  db: Db,
  rp: RelyingParty,
  purpose: ChallengePurpose,
  ceremony: Ceremony,
  userId: string | null,
  credentials: CredentialRow[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_SECONDS * 1000,
    userVerification: 'required',
    allowCredentials: credentials.map((c) => ({ id: c.credential_id, transports: c.transports })),
  });
  await storeChallenge(db, purpose, ceremony, options.challenge, userId);
  return options;
}

/** Verifies a passwordless assertion; the user is the credential's owner, who the authenticator also names. */
export async function finishPasswordless(
  db: Db,
  rp: RelyingParty,
  ceremony: Ceremony,
  credential: string,
): Promise<{ userId: string; amr: string[] }> {
  return finishAssertion(db, rp, 'sign_in', ceremony, credential);
}

/** Verifies the second factor of the user the challenge was issued for. */
export async function finishSecondFactor(
  db: Db,
  rp: RelyingParty,
  userId: string,
  ceremony: Ceremony,
  credential: string,
): Promise<{ userId: string; amr: string[] }> {
  const result = await finishAssertion(db, rp, 'second_factor', ceremony, credential);
  if (result.userId !== userId) throw unverified();
  return result;
}

async function finishAssertion(
  db: Db,
  rp: RelyingParty,
  purpose: ChallengePurpose,
  ceremony: Ceremony,
  credential: string,
): Promise<{ userId: string; amr: string[] }> {
  const response = parseCredential<AuthenticationResponseJSON>(credential, 'authenticatorData');
  const pending = await takeChallenge(db, purpose, ceremony.binding);
  if (!pending) throw unverified();
  const stored = await findCredentialByCredentialId(db, response.id);
  if (!stored || (pending.user_id !== null && stored.user_id !== pending.user_id)) throw unverified();
  // A discoverable credential names its user; it must be the credential's owner (WebAuthn §7.2 step 6).
  const handle = response.response.userHandle;
  if (handle !== undefined && Buffer.from(handle, 'base64url').toString() !== stored.user_id) throw unverified();
  const verification = await (await webauthn())
    .verifyAuthenticationResponse({
      response,
      expectedChallenge: pending.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: stored.credential_id,
        publicKey: Buffer.from(stored.public_key, 'base64url'),
        counter: Number(stored.sign_count),
        transports: stored.transports,
      },
    })
    .catch(() => ({ verified: false as const, authenticationInfo: undefined }));
  if (!verification.verified) throw unverified();
  await recordCredentialUse(db, stored.id, {
    signCount: verification.authenticationInfo.newCounter,
    backupState: verification.authenticationInfo.credentialBackedUp,
  });
  return { userId: stored.user_id, amr: passkeyAmr(stored) };
}

export const listPasskeys = (db: Queryable, userId: string) => listCredentialsOfUser(db, userId);

export async function removePasskey(db: Db, user: UserRow, tokenId: string, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    // ZITADEL's HumanRemovePasswordless (command/user_human_webauthn.go removeHumanWebAuthN)
    if (!(await deleteCredential(tx, user.id, tokenId))) throw notFound('Passkey not found', 'COMMAND-DAfb2');
    const remaining = await listCredentialsOfUser(tx, user.id);
    await setFactorKind(tx, user.id, WEBAUTHN_KIND, remaining.length > 0);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.passkeyRemoved,
      payload: { webAuthNTokenId: tokenId },
      resourceOwner: user.org_id,
      creator,
    });
    return changedDetails(event);
  });
}

async function storeChallenge(
  db: Db,
  purpose: ChallengePurpose,
  ceremony: Ceremony,
  challenge: string,
  userId: string | null,
): Promise<void> {
  await putChallenge(db, { purpose, binding: ceremony.binding, challenge, userId, ttlSeconds: CEREMONY_SECONDS });
}

function validName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidArgument('name is required', 'WEBAUTHN-n4me1');
  if ([...name].length > PASSKEY_NAME_MAX)
    throw invalidArgument(`name must be at most ${PASSKEY_NAME_MAX} characters`, 'WEBAUTHN-n4me2');
  return name;
}

/** The browser's credential as JSON (WebAuthn L3 toJSON shape); its contents are checked by the verification. */
function parseCredential<T>(text: string, required: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument('credential must be JSON', 'WEBAUTHN-j5on1');
  }
  const shaped =
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { id?: unknown }).id === 'string' &&
    typeof (value as { rawId?: unknown }).rawId === 'string' &&
    typeof (value as { response?: { clientDataJSON?: unknown } }).response?.clientDataJSON === 'string' &&
    typeof (value as { response?: Record<string, unknown> }).response?.[required] === 'string';
  if (!shaped) throw invalidArgument('credential is not a WebAuthn credential', 'WEBAUTHN-j5on2');
  return value as T;
}
