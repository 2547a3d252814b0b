// The report of `npm run bench -- --scale` (issue 18 "Scale"): each scenario on the seeded database against the same
// scenario on an empty one, measured alternately in one run, then again while the background sweep runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult } from './report.ts';
import { consoleTable, type PageTiming } from './console-pages.ts';
import { LARGE_DEPLOYMENT, type ScaleSize, type SeedReport } from './scale-seed.ts';

/** Targets of issue 18 "Scale". */
const MIN_THROUGHPUT_RATIO = 0.8;
const MAX_P99_RATIO = 2;
const MAX_P99_RISE_WHILE_SWEEPING = 1.2;
const MAX_PEAK_RSS_MB = 300;

/** The sweep interval of the second pass: the deployment default (GATEHOUSE_OIDC_SWEEP_INTERVAL_MS). */
export const SWEEP_INTERVAL_MS = 60_000;

export interface SweepProgress {
  at: number;
  /** gatehouse_swept_rows_total of the process (it restarts at 0 with the process). */
  swept: number;
  since?: SweepProgress;
}

export interface ScalePhase {
  name: 'at scale' | 'at scale, sweep running';
  pairs: { empty: ScenarioResult; scaled: ScenarioResult }[];
  sweep: SweepProgress;
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

export async function sweepProgress(url: string): Promise<SweepProgress> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const swept = [...text.matchAll(/^gatehouse_swept_rows_total\{[^}]*\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  return { at: Date.now(), swept };
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const errorsOf = (r: ScenarioResult) => r.gatehouse.errors + r.gatehouse.unexpected;

export function scaleReport(run: {
  seed: SeedReport;
  phases: ScalePhase[];
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
  const [still, sweeping] = run.phases;
  const { size, loadSeconds, vacuumSeconds } = run.seed;
  const lines = [
    `# Gatehouse at scale, ${new Date().toISOString()}`,
    '',
    `Seeded: ${size.orgs} orgs, ${size.users} users, ${size.apps} apps, ${size.tokens} oidc_payloads rows ` +
      `(${run.expired} expired) in ${round(loadSeconds, 0)} s, ` +
      `then VACUUM ANALYZE and CHECKPOINT in ${round(vacuumSeconds, 0)} s ` +
      `(bench/scale-seed.ts). PostgreSQL (${run.databaseSettings}), 32 connections (1 where named), ` +
      `${run.durationSeconds} s per scenario after warm-up, the empty database and the seeded one alternating.`,
    '',
    '| scenario | empty req/s | empty p99 ms | scale req/s | scale p99 ms | req/s ratio | p99 ratio | ' +
      'sweeping: scale req/s | p99 ms | p99 vs still | empty p99 ms | peak RSS MB | verdict |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [i, pair] of (still?.pairs ?? []).entries()) {
    const e = pair.empty.gatehouse;
    const s = pair.scaled.gatehouse;
    const w = sweeping?.pairs[i];
    const rps = s.rps / e.rps;
    const p99 = s.p99 / e.p99;
    const rise = w ? w.scaled.gatehouse.p99 / s.p99 : undefined;
    const peak = Math.max(s.peakRssMb ?? 0, w?.scaled.gatehouse.peakRssMb ?? 0);
    const misses = [
      errorsOf(pair.scaled) + errorsOf(pair.empty) + (w ? errorsOf(w.scaled) : 0) > 0 ? 'errors' : '',
      rps < MIN_THROUGHPUT_RATIO ? `req/s < ${MIN_THROUGHPUT_RATIO}x` : '',
      p99 > MAX_P99_RATIO ? `p99 > ${MAX_P99_RATIO}x` : '',
      rise !== undefined && rise > MAX_P99_RISE_WHILE_SWEEPING ? 'p99 +20% sweeping' : '',
      pair.scaled.target?.p99 !== undefined && s.p99 > pair.scaled.target.p99 ? `p99 > ${pair.scaled.target.p99}` : '',
      peak > MAX_PEAK_RSS_MB ? `RSS > ${MAX_PEAK_RSS_MB}` : '',
    ].filter(Boolean);
    lines.push(
      `| ${pair.scaled.scenario} | ${Math.round(e.rps)} | ${e.p99} | ${Math.round(s.rps)} | ${s.p99} | ` +
        `${round(rps)} | ${round(p99)} | ${w ? Math.round(w.scaled.gatehouse.rps) : ''} | ` +
        `${w?.scaled.gatehouse.p99 ?? ''} | ${rise === undefined ? '' : round(rise)} | ` +
        `${w?.empty.gatehouse.p99 ?? ''} | ${peak} | ${misses.length ? `MISSED: ${misses.join(', ')}` : 'met'} |`,
    );
  }
  if (sweeping?.sweep.since) {
    const swept = sweeping.sweep.swept - sweeping.sweep.since.swept;
    const seconds = (sweeping.sweep.at - sweeping.sweep.since.at) / 1000;
    lines.push(
      '',
      `Background sweep (interval ${SWEEP_INTERVAL_MS / 1000} s) during the second pass: ${swept} rows in ` +
        `${round(seconds, 0)} s, ${round(swept / seconds, 0)} rows/s; ` +
        `${run.expired - sweeping.sweep.swept} of the ${run.expired} expired rows left.`,
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
