// Token signing keys in Postgres, published in the JWKS. The private JWK is sealed with the master key. Two-phase
// rotation: a new key is published at once and signs from activates_at; the previous key stays published until every
// token it signed has expired. Every process reads the table, so all agree.
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { newId } from '../platform/ids.ts';

export const SIGNING_ALG = 'RS256';
const LOCK_KEY = 7_146_003; // "gatehouse signing keys"

interface KeyRow {
  kid: string;
  public_jwk: JWK;
  private_jwk: string;
  activates_at: Date;
}

export interface KeySet {
  /** Private JWKs for oidc-provider: the signing key first, then the other published keys. */
  readonly privateJwks: readonly JWK[];
  /** Public JWKs of every published key, for verifying our own JWTs. */
  readonly publicJwks: readonly JWK[];
  readonly signingKid: string;
  /** Changes whenever the published set or the signing key changes (also by time: activation, expiry). */
  readonly fingerprint: string;
}

export interface KeyOptions {
  activationDelay: number;
  retainSeconds: number;
  rotationDays: number;
}

export async function loadKeySet(db: Db, secrets: SecretBox, options: KeyOptions): Promise<KeySet> {
  let rows = await selectKeys(db);
  if (!rows.some((r) => r.activates_at.getTime() <= Date.now()) || rotationDue(rows, options.rotationDays)) {
    // First start (a key that signs at once) or the automatic schedule; the lock makes concurrent processes add one.
    const first = !rows.length;
    await db.tx(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const current = await selectKeys(tx);
      if (first ? current.length === 0 : rotationDue(current, options.rotationDays)) {
        await insertKey(tx, secrets, first ? 0 : options.activationDelay);
      }
    });
    rows = await selectKeys(db);
  }
  return buildKeySet(rows, secrets, options.retainSeconds);
}

/** `gatehouse keys rotate`: publishes a new key that signs after the activation delay. */
export async function rotateKeys(
  db: Db,
  secrets: SecretBox,
  activationDelay: number,
): Promise<{ kid: string; activatesAt: Date }> {
  return db.tx(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    return insertKey(tx, secrets, activationDelay);
  });
}

function rotationDue(rows: KeyRow[], rotationDays: number): boolean {
  if (!rotationDays || !rows.length) return false;
  const newest = rows[0]!;
  return newest.activates_at.getTime() + rotationDays * 86_400_000 <= Date.now();
}

async function selectKeys(db: Queryable): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    'SELECT kid, public_jwk, private_jwk, activates_at FROM signing_keys ORDER BY activates_at DESC, created_at DESC',
  );
  return rows;
}

async function insertKey(
  tx: Queryable,
  secrets: SecretBox,
  activationDelay: number,
): Promise<{ kid: string; activatesAt: Date }> {
  const kid = newId();
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const meta = { kid, alg: SIGNING_ALG, use: 'sig' };
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), ...meta };
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), ...meta };
  const { rows } = await tx.query<{ activates_at: Date }>(
    `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, activates_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING activates_at`,
    [kid, SIGNING_ALG, publicJwk, secrets.encrypt(JSON.stringify(privateJwk)), activationDelay],
  );
  return { kid, activatesAt: rows[0]!.activates_at };
}

interface Classified {
  signing: KeyRow;
  waiting: KeyRow[];
  retired: KeyRow[];
}

/** Rows newest first: the signing key is the newest active one, the keys before it wait to sign, and the keys after
 *  it stay published until the tokens they signed have expired. */
function classify(rows: KeyRow[], retainSeconds: number, now: number): Classified {
  const signingIndex = rows.findIndex((r) => r.activates_at.getTime() <= now);
  if (signingIndex < 0) throw new Error('no active signing key');
  const waiting = rows.slice(0, signingIndex);
  const retired: KeyRow[] = [];
  for (let i = signingIndex + 1; i < rows.length; i++) {
    // retired when its successor started signing; published until the tokens it signed have expired
    const until = rows[i - 1]!.activates_at.getTime() + retainSeconds * 1000;
    if (until <= now) break;
    retired.push(rows[i]!);
  }
  return { signing: rows[signingIndex]!, waiting, retired };
}

/** A key's private half. It is sealed with the master key, so a start with another key than the one the database was
 *  set up with fails here first: the error names the setting instead of the cipher's "unable to authenticate data". */
function openPrivateJwk(secrets: SecretBox, row: KeyRow): JWK {
  let json: string;
  try {
    json = secrets.decrypt(row.private_jwk);
  } catch (error) {
    throw new Error(
      `signing key ${row.kid} does not open with this master key: GATEHOUSE_MASTER_KEY (with the embedded database, ` +
        'master.key in GATEHOUSE_DATA_DIR) must be the key this database was set up with',
      { cause: error },
    );
  }
  return JSON.parse(json) as JWK;
}

function buildKeySet(rows: KeyRow[], secrets: SecretBox, retainSeconds: number): KeySet {
  const { signing, waiting, retired } = classify(rows, retainSeconds, Date.now());
  const ordered = [signing, ...waiting, ...retired];
  return {
    privateJwks: ordered.map((r) => openPrivateJwk(secrets, r)),
    publicJwks: ordered.map((r) => r.public_jwk),
    signingKid: signing.kid,
    fingerprint: ordered.map((r) => r.kid).join(','),
  };
}

export interface KeyListing {
  kid: string;
  alg: string;
  status: 'signing' | 'next' | 'published' | 'unpublished';
  createdAt: Date;
  activatesAt: Date;
}

/** `gatehouse keys list`: every key with its state; `published` = retired but still in the JWKS. */
export async function listKeys(db: Db, retainSeconds: number): Promise<KeyListing[]> {
  const { rows } = await db.query<KeyRow & { alg: string; created_at: Date }>(
    'SELECT kid, alg, public_jwk, private_jwk, activates_at, created_at FROM signing_keys ' +
      'ORDER BY activates_at DESC, created_at DESC',
  );
  if (!rows.length) return [];
  const { signing, waiting, retired } = classify(rows, retainSeconds, Date.now());
  const status = (r: KeyRow): KeyListing['status'] =>
    r === signing ? 'signing' : waiting.includes(r) ? 'next' : retired.includes(r) ? 'published' : 'unpublished';
  return rows.map((r) => ({
    kid: r.kid,
    alg: r.alg,
    status: status(r),
    createdAt: r.created_at,
    activatesAt: r.activates_at,
  }));
}

/** Whether the signing key opens with this master key (doctor: a wrong GATEHOUSE_MASTER_KEY cannot sign). */
export async function checkSigningKey(db: Db, secrets: SecretBox): Promise<string> {
  const rows = await selectKeys(db);
  const { signing } = classify(rows, 0, Date.now());
  openPrivateJwk(secrets, signing);
  return signing.kid;
}
