// The Gatehouse side of `npm run bench`: a real server process, and the fixtures each scenario needs, created the
// way an operator would, through the management API with the admin service account.
import { spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pg from 'pg';
import { openDb } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { randomSeededUser, type ScaleSize, type SeedReport, seedScale } from './scale-seed.ts';
import { rssMb } from './memory.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// The node flags and environment of `npm start` (V8 heap sizing, malloc's arenas), so the bench measures the
// process operators run.
const START_WORDS = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
).scripts.start.split(' ');
const START_FLAGS = START_WORDS.filter((word) => word.startsWith('--'));
const START_ENV = Object.fromEntries(
  START_WORDS.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2) as [string, string]),
);
export const MANAGEMENT_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
export const CALLBACK = 'https://rp.bench.test/callback';
export const USER = { loginName: 'bench-user', password: 'Bench-Password-1' };

/** A user for the lookups (GetUserByID, ListUsers), with the org header that names its org. */
export interface LookupUser {
  id: string;
  userName: string;
  headers: Record<string, string>;
}

/** A seeded user at random on a seeded database (reads spread over a million users, not one hot row), else the
 *  bench user of the default org. */
export function lookupUser(gh: GatehouseTarget): LookupUser {
  if (!gh.seed) return { id: gh.userId, userName: USER.loginName, headers: {} };
  const { id, userName, orgId } = randomSeededUser(gh.seed.size);
  return { id, userName, headers: { 'x-zitadel-orgid': orgId } };
}

export interface KeyFile {
  keyId: string;
  key: string;
  userId: string;
}
export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export interface GatehouseTarget {
  url: string;
  pid: number;
  database: 'postgres' | 'embedded';
  /** The bench's own PostgreSQL database (unset: embedded). */
  databaseUrl?: string;
  adminToken: string;
  /** A personal access token of the admin service account (IAM_OWNER, as adminToken). */
  personalAccessToken: string;
  clientCredentials: Credentials;
  clientCredentialsJwt: Credentials;
  introspector: Credentials;
  projectId: string;
  serviceKey: KeyFile;
  web: Credentials;
  /** The app of `web` (the console pages' app). */
  webAppId: string;
  /** The admin's org, where the fixtures are. */
  orgId: string;
  /** The ID of USER, the human of the login scenarios. */
  userId: string;
  /** The resident memory of the Gatehouse processes once ready, before the fixtures and any load. */
  startupRssMb: number;
  /** How the database was seeded before the start (`seed` option), if it was. */
  seed?: SeedReport;
  stop(): Promise<void>;
}

export interface StartOptions {
  cpuProfileDir?: string;
  /** PostgreSQL only: migrate and seed the new database like a large deployment before Gatehouse starts on it;
   *  `reuse`: copy it from a seeded template database kept between runs (seedTemplate). */
  seed?: { size: ScaleSize; progress: (what: string) => void; reuse?: boolean };
  env?: Record<string, string>;
  /** GATEHOUSE_WORKERS, 1 unless given. */
  workers?: number;
}

/** Starts Gatehouse on a fresh database: PostgreSQL when DATABASE_URL is set (a new database there), else embedded. */
export async function startGatehouse(port: number, options: StartOptions = {}): Promise<GatehouseTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEHOUSE_ISSUER: url,
    LOG_LEVEL: 'warn',
    GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64url'),
    GATEHOUSE_ADMIN_PASSWORD: 'Bench-Admin-1',
    GATEHOUSE_ADMIN_KEY_FILE: join(dir, 'admin.json'),
    // The load generator runs on loopback: abuse limits would measure themselves.
    GATEHOUSE_RATE_LIMIT_EXEMPT: '127.0.0.1,::1,::ffff:127.0.0.1',
    // One address and one account run every virtual user's login (and SetUpOrg): the per-address hashing bound
    // would shed them, and the account's attempts in flight count against its lockout budget.
    GATEHOUSE_HASH_PER_ADDRESS: '1000',
    GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '1000',
    GATEHOUSE_WORKERS: String(options.workers ?? 1),
    ...START_ENV,
    ...options.env,
    // The code exchange scenario redeems codes minted up to a minute or two before (the default lifetime is 60 s).
    GATEHOUSE_AUTH_CODE_TTL: '600',
  };
  let dropDatabase = async () => {};
  let reused: SeedReport | undefined;
  if (process.env.DATABASE_URL) {
    const name = `gatehouse_bench_${Date.now().toString(36)}`;
    const server = new URL(process.env.DATABASE_URL);
    const template = options.seed?.reuse ? await seedTemplate(server, options.seed) : undefined;
    const admin = new pg.Client({ connectionString: server.toString() });
    await admin.connect();
    // a copy of the template's files: a minute where seeding takes five
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template.name} STRATEGY FILE_COPY` : ''}`);
    await admin.end();
    reused = template?.seed;
    const target = new URL(server);
    target.pathname = `/${name}`;
    env.DATABASE_URL = target.toString();
    // 8 connections: with PostgreSQL on the same two cores, more backends only contend (measured with 4, 6, 8, 16
    // and 32 on introspection, userinfo and client_credentials: 8 was best or level). The budget of all workers.
    env.DATABASE_POOL_SIZE = process.env.DATABASE_POOL_SIZE ?? '8';
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: server.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  } else {
    env.GATEHOUSE_DATA_DIR = join(dir, 'data');
  }
  const seed = reused ?? (options.seed && (await migrateAndSeed(env.DATABASE_URL, options.seed)));
  const profiling = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child = spawn(process.execPath, [...profiling, ...START_FLAGS, MAIN], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stopChild = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  };
  // a start that fails leaves neither the process nor its database behind
  const started = async () => {
    await waitReady(url, child);
    const startupRssMb = rssMb(child.pid!);
    const adminKey = JSON.parse(readFileSync(env.GATEHOUSE_ADMIN_KEY_FILE!, 'utf8')) as KeyFile;
    const adminToken = await jwtProfileToken(url, adminKey, `openid ${MANAGEMENT_SCOPE}`);
    return { adminToken, startupRssMb, ...(await createFixtures(url, adminToken, adminKey.userId)) };
  };
  const { adminToken, startupRssMb, ...fixtures } = await started().catch(async (error: unknown) => {
    await stopChild();
    await dropDatabase();
    throw error;
  });
  return {
    url,
    pid: child.pid!,
    database: env.DATABASE_URL ? 'postgres' : 'embedded',
    databaseUrl: env.DATABASE_URL,
    adminToken,
    startupRssMb,
    ...fixtures,
    seed,
    async stop() {
      await stopChild();
      await dropDatabase();
    },
  };
}

/** The schema first (the seed fills Gatehouse's own tables), then the rows; Gatehouse starts on the seeded database
 *  as it would after an upgrade of a large deployment. */
async function migrateAndSeed(url: string | undefined, seed: NonNullable<StartOptions['seed']>): Promise<SeedReport>;
async function migrateAndSeed(url: string, seed: undefined): Promise<undefined>;
async function migrateAndSeed(
  url: string | undefined,
  seed: StartOptions['seed'] | undefined,
): Promise<SeedReport | undefined> {
  if (!url) throw new Error('seeding at scale needs PostgreSQL (DATABASE_URL)');
  // an hour: the seed's index builds over ten million rows are single statements
  const db = await openDb({
    kind: 'postgres',
    url,
    poolSize: 1,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 3_600_000,
  });
  try {
    await migrate(db);
    return seed && (await seedScale(db, seed.size, seed.progress));
  } finally {
    await db.close();
  }
}

/**
 * `--reuse-seed`: the seeded database kept as a template, `gatehouse_scale_<orgs>_<users>_<apps>_<tokens>`, seeded
 * the first time (its seed report kept as the database's comment); runs copy it and migrate the copy on start, so a
 * later schema still applies. The template stays after the run (DROP DATABASE it to free the disk).
 */
async function seedTemplate(
  server: URL,
  seed: NonNullable<StartOptions['seed']>,
): Promise<{ name: string; seed: SeedReport }> {
  const { orgs, users, apps, tokens } = seed.size;
  const name = `gatehouse_scale_${orgs}_${users}_${apps}_${tokens}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  try {
    const comment = async () =>
      (
        await admin.query<{ report: string | null }>(
          'SELECT shobj_description(oid, $2) AS report FROM pg_database WHERE datname = $1',
          [name, 'pg_database'],
        )
      ).rows[0]?.report;
    const kept = await comment();
    if (kept) {
      seed.progress(`reusing the seeded database ${name}, migrated to this schema`);
      // once here rather than in every copy: a migration over a million rows takes its time
      await migrateAndSeed(`${new URL(`/${name}`, server)}`, undefined);
      return { name, seed: JSON.parse(kept) as SeedReport };
    }
    // a template without its report is one whose seeding did not finish
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(server);
    target.pathname = `/${name}`;
    const report = await migrateAndSeed(target.toString(), seed);
    await admin.query(`COMMENT ON DATABASE ${name} IS '${JSON.stringify(report)}'`);
    return { name, seed: report };
  } finally {
    await admin.end();
  }
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  // minutes: a fresh database migrates first, on a busy machine too
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gatehouse exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('gatehouse did not become ready within 180 s');
}

/** A management call; T names the fields of the answer the caller reads. */
async function api<T = unknown>(
  url: string,
  token: string,
  method: string,
  path: string,
  body: unknown = {},
): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function machineWithSecret(
  url: string,
  token: string,
  userName: string,
  accessTokenType: string,
): Promise<Credentials & { userId: string }> {
  const { userId } = await api<{ userId: string }>(url, token, 'POST', '/management/v1/users/machine', {
    userName,
    name: userName,
    accessTokenType,
  });
  const { clientId, clientSecret } = await api<Credentials>(url, token, 'PUT', `/management/v1/users/${userId}/secret`);
  return { userId, clientId, clientSecret };
}

async function createFixtures(url: string, token: string, adminUserId: string) {
  const pat = await api<{ token: string }>(url, token, 'POST', `/management/v1/users/${adminUserId}/pats`, {});
  const clientCredentials = await machineWithSecret(url, token, 'bench-cc', 'ACCESS_TOKEN_TYPE_BEARER');
  const clientCredentialsJwt = await machineWithSecret(url, token, 'bench-cc-jwt', 'ACCESS_TOKEN_TYPE_JWT');
  const keyed = await machineWithSecret(url, token, 'bench-jwt-profile', 'ACCESS_TOKEN_TYPE_BEARER');
  const { keyDetails } = await api<{ keyDetails: string }>(
    url,
    token,
    'POST',
    `/management/v1/users/${keyed.userId}/keys`,
    {
      type: 'KEY_TYPE_JSON',
    },
  );
  const serviceKey = JSON.parse(Buffer.from(keyDetails, 'base64').toString('utf8')) as KeyFile;
  const { id: projectId } = await api<{ id: string }>(url, token, 'POST', '/management/v1/projects', { name: 'Bench' });
  const api1 = await api<Credentials>(url, token, 'POST', `/management/v1/projects/${projectId}/apps/api`, {
    name: 'bench-rs',
    authMethodType: 'API_AUTH_METHOD_TYPE_BASIC',
  });
  const web = await api<Credentials & { appId: string }>(
    url,
    token,
    'POST',
    `/management/v1/projects/${projectId}/apps/oidc`,
    {
      name: 'bench-web',
      redirectUris: [CALLBACK],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    },
  );
  const { userId } = await api<{ userId: string }>(url, token, 'POST', '/management/v1/users/human/_import', {
    userName: USER.loginName,
    profile: { firstName: 'Bench', lastName: 'User' },
    email: { email: 'bench@example.test', isEmailVerified: true },
    password: USER.password,
    passwordChangeRequired: false,
  });
  const { org } = await fetch(`${url}/management/v1/orgs/me`, { headers: { authorization: `Bearer ${token}` } }).then(
    (r) => r.json() as Promise<{ org: { id: string } }>,
  );
  return {
    clientCredentials,
    clientCredentialsJwt,
    orgId: org.id,
    webAppId: web.appId,
    serviceKey,
    projectId,
    introspector: { clientId: api1.clientId, clientSecret: api1.clientSecret },
    web: { clientId: web.clientId, clientSecret: web.clientSecret },
    userId,
    personalAccessToken: pat.token,
  };
}

/** A JWT-profile assertion as ZITADEL's SDKs build it (no jti, so one assertion serves a whole run). */
export async function serviceAssertion(url: string, key: KeyFile): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: key.keyId })
    .setIssuer(key.userId)
    .setSubject(key.userId)
    .setAudience(url)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(createPrivateKey(key.key));
}

export async function jwtProfileToken(url: string, key: KeyFile, scope: string): Promise<string> {
  const res = await fetch(`${url}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await serviceAssertion(url, key),
      scope,
    }),
  });
  const json = (await res.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`jwt-profile token: ${res.status} ${JSON.stringify(json)}`);
  return json.access_token;
}
