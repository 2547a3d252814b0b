// The report of `npm run bench -- --scale`: each scenario on the seeded database against the same
// scenario on an empty one, measured alternately in one run, then again while the background sweep runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult } from './report.ts';
import { consoleTable, type PageTiming } from './console-pages.ts';
import { LARGE_DEPLOYMENT, type ScaleSize, type SeedReport } from './scale-seed.ts';

/** The targets at scale: against the empty database, and the peak RSS. */
const MIN_THROUGHPUT_RATIO = 0.8;
const MAX_P99_RATIO = 2;
const MAX_P99_RISE_WHILE_SWEEPING = 1.2;
const MAX_PEAK_RSS_MB = 300;

/** What the sweep did during one measured window. */
export interface SweepWindow {
  rows: number;
  seconds: number;
  /** It ran out of expired rows before the window ended, so part of the window was measured without it. */
  ranOut: boolean;
}

/** One scenario on the seeded database: still, then at once again while the sweep runs, once per round. */
export interface SweepPair {
  still: ScenarioResult[];
  sweeping: ScenarioResult[];
  sweep: SweepWindow[];
}

/** `--scale-size orgs,users,apps,tokens`, else LARGE_DEPLOYMENT. */
export function scaleSize(args: string[]): ScaleSize {
  const at = args.indexOf('--scale-size');
  return at < 0 ? LARGE_DEPLOYMENT : parseScaleSize(args[at + 1] ?? '');
}

/** `orgs,users,apps,tokens`, each a positive integer. */
export function parseScaleSize(text: string): ScaleSize {
  const [orgs, users, apps, tokens] = text.split(',').map(Number);
  const size = { orgs: orgs!, users: users!, apps: apps!, tokens: tokens! };
  if (!Object.values(size).every((n) => Number.isInteger(n) && n > 0))
    throw new Error('--scale-size takes orgs,users,apps,tokens (positive integers)');
  return size;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const errorsOf = (r: ScenarioResult) => r.gatehouse.errors + r.gatehouse.unexpected;
const medianP99 = (results: ScenarioResult[]) => median(results.map((r) => r.gatehouse.p99));

export function scaleReport(run: {
  seed: SeedReport;
  /** Each scenario on the empty database and on the seeded one, alternating. */
  pairs: { empty: ScenarioResult; scaled: ScenarioResult }[];
  /** Then each on the seeded database without and with the sweep, in the same order, `sweepRounds` times. */
  sweepPairs: SweepPair[];
  sweepRounds: number;
  expired: number;
  durationSeconds: number;
  /** PostgreSQL's settings that shape the figures (bench/database-time.ts serverSettings). */
  databaseSettings: string;
  /** Per page: its timing on the empty database, then on the seeded one. */
  consolePages?: PageTiming[][];
  pageRequests?: number;
  /** The machine's 1-minute load average before and after the console pages. */
  pageLoad?: number[];
}): string {
  const { size, loadSeconds, vacuumSeconds } = run.seed;
  const lines = [
    `# Gatehouse at scale, ${new Date().toISOString()}`,
    '',
    `Seeded: ${size.orgs} orgs, ${size.users} users, ${size.apps} apps, ${size.tokens} oidc_payloads rows ` +
      `(${run.expired} expired) in ${round(loadSeconds, 0)} s, ` +
      `then VACUUM ANALYZE and CHECKPOINT in ${round(vacuumSeconds, 0)} s ` +
      `(bench/scale-seed.ts). PostgreSQL (${run.databaseSettings}), 32 connections (1 where named), ` +
      `${run.durationSeconds} s per scenario after warm-up, the empty database and the seeded one alternating; ` +
      `then on the seeded one again, still and at once while the sweep runs, ${run.sweepRounds} round(s) ` +
      '(p99 of each round; req/s the median).',
    '',
    '| scenario | empty req/s | empty p99 ms | scale req/s | scale p99 ms | req/s ratio | p99 ratio | ' +
      'still p99 ms | sweeping req/s | sweeping p99 ms | p99 vs still (medians) | peak RSS MB | verdict |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [i, pair] of run.pairs.entries()) {
    const e = pair.empty.gatehouse;
    const s = pair.scaled.gatehouse;
    const w = run.sweepPairs[i];
    const rps = s.rps / e.rps;
    const p99 = s.p99 / e.p99;
    // the median round of each side: one 10-second p99 is noisy (the 20% allowed is within a round's spread)
    const rise = w && medianP99(w.sweeping) / medianP99(w.still);
    const measured = [pair.scaled, pair.empty, ...(w ? [...w.still, ...w.sweeping] : [])];
    const peak = Math.max(...measured.map((r) => r.gatehouse.peakRssMb ?? 0));
    const misses = [
      measured.some((r) => errorsOf(r) > 0) ? 'errors' : '',
      rps < MIN_THROUGHPUT_RATIO ? `req/s < ${MIN_THROUGHPUT_RATIO}x` : '',
      p99 > MAX_P99_RATIO ? `p99 > ${MAX_P99_RATIO}x` : '',
      rise !== undefined && rise > MAX_P99_RISE_WHILE_SWEEPING ? 'p99 +20% sweeping' : '',
      w?.sweep.some((window) => window.ranOut) ? 'sweep ran out' : '',
      pair.scaled.target?.p99 !== undefined && s.p99 > pair.scaled.target.p99 ? `p99 > ${pair.scaled.target.p99}` : '',
      peak > MAX_PEAK_RSS_MB ? `RSS > ${MAX_PEAK_RSS_MB}` : '',
    ].filter(Boolean);
    const rounds = (results: ScenarioResult[]) => results.map((r) => r.gatehouse.p99).join(', ');
    lines.push(
      `| ${pair.scaled.scenario} | ${Math.round(e.rps)} | ${e.p99} | ${Math.round(s.rps)} | ${s.p99} | ` +
        `${round(rps)} | ${round(p99)} | ${w ? rounds(w.still) : ''} | ` +
        `${w ? Math.round(median(w.sweeping.map((r) => r.gatehouse.rps))) : ''} | ${w ? rounds(w.sweeping) : ''} | ` +
        `${rise === undefined ? '' : round(rise)} | ${peak} | ` +
        `${misses.length ? `MISSED: ${misses.join(', ')}` : 'met'} |`,
    );
  }
  if (run.sweepPairs.length) {
    const windows = run.sweepPairs.flatMap((w) => w.sweep);
    const rows = windows.reduce((n, w) => n + w.rows, 0);
    const seconds = windows.reduce((n, w) => n + w.seconds, 0);
    lines.push(
      '',
      `The sweep (sweepExpired, src/oidc/payload-store.ts, on a connection of its own) during the measured ` +
        `windows: ${rows} rows in ${round(seconds, 0)} s, ${round(rows / seconds, 0)} rows/s under load; ` +
        `${run.expired - rows} of the ${run.expired} expired rows left.`,
    );
  }
  if (run.consolePages?.length)
    lines.push(
      '',
      `Console pages (bench/console-pages.ts): the bench's admin (IAM_OWNER) signed in through the login pages, ` +
        `${run.pageRequests} requests per page one at a time after a tenth as many to warm up, a random seeded ` +
        'org (project, app, user) per request; server times from Server-Timing, statements per page from the pool; ' +
        `load average ${run.pageLoad?.map((l) => l.toFixed(1)).join(' before, ')} after.`,
      '',
      consoleTable(run.consolePages, ['empty', `${size.users} users`]),
    );
  return `${lines.join('\n')}\n`;
}

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

export function writeScaleReport(report: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}${new Date().toISOString().replace(/[:.]/g, '-')}-scale.md`;
  writeFileSync(path, report);
  return path;
}
