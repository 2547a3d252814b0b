// What a start costs in memory (docs/performance.md, "Memory"): the libraries only rare requests use are loaded by
// those requests, and the resident memory of a ready server, started as `npm start` starts it, stays well under the
// bound docs/operations.md sizes containers by.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { waitForOk } from '../helpers/process.ts';
import { freePort, testEnv } from '../helpers/server.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const RECORDER = fileURLToPath(new URL('../helpers/record-packages.ts', import.meta.url));
// `npm start`'s node flags and environment (V8's heap sizing, malloc's arenas)
const START = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start.split(' ');
const START_FLAGS = START.filter((word) => word.startsWith('--'));
const START_ENV = Object.fromEntries(
  START.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2) as [string, string]),
);
// Measured at 160-175 MB on PostgreSQL (2026-11-28); the embedded database adds PGlite's WebAssembly heap.
const STARTUP_RSS_BOUND_MB = 210;

const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);

describe('a start', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });

  it('loads neither WebAuthn nor mail libraries, and its resident memory stays under the bound', async () => {
    database = await createTestDatabase();
    const port = await freePort();
    const packagesFile = join(mkdtempSync(join(tmpdir(), 'gatehouse-start-')), 'packages');
    const child = spawn(process.execPath, ['--import', RECORDER, ...START_FLAGS, MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        ...START_ENV,
        ...testEnv(port, database, { LOG_LEVEL: 'warn', GATEHOUSE_TEST_PACKAGES_FILE: packagesFile }),
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitForOk(`http://127.0.0.1:${port}/readyz`, 60_000);
      const packages = readFileSync(packagesFile, 'utf8').trim().split('\n');
      expect(packages).toContain('oidc-provider'); // the recorder works
      expect(packages).not.toContain('@simplewebauthn/server');
      expect(packages).not.toContain('nodemailer');
      if (database.env.DATABASE_URL) {
        expect(packages).not.toContain('@electric-sql/pglite');
        expect(rssMb(child.pid!)).toBeLessThan(STARTUP_RSS_BOUND_MB);
      }
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
