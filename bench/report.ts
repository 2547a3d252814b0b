// Results of `npm run bench`: a table on stdout, and JSON + Markdown files under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.ts';
import type { CpuUse } from './machine-cpu.ts';
import { memoryFacts } from './memory.ts';

export interface ScenarioResult {
  scenario: string;
  connections: number;
  /** peakRssMb: the Gatehouse processes' peak resident memory during the scenario (warm-up included), summed. */
  /** databaseMsPerRequest: CPU of the database's PostgreSQL backends per request (bench/database-time.ts). */
  /** cpu: the machine's idle share and Gatehouse's threads during the measured run (bench/machine-cpu.ts). */
  gatehouse: LoadResult & {
    queriesPerRequest?: number;
    databaseMsPerRequest?: number;
    peakRssMb?: number;
    cpu?: CpuUse;
  };
  baseline?: LoadResult;
  target?: { rps?: number; p99?: number; queries?: number; ratio?: number };
  /** req/s of each round when the run measured several (`--rounds`); the figures above are the median round's. */
  rounds?: number[];
  baselineRounds?: number[];
}

export interface Run {
  startedAt: string;
  database: 'postgres' | 'embedded';
  machine: { cpus: number; node: string };
  /** PostgreSQL's settings that shape the figures (bench/database-time.ts serverSettings); absent: embedded. */
  databaseSettings?: string;
  /** GATEHOUSE_WORKERS of the run (absent in runs before the setting existed: 1). */
  workers?: number;
  durationSeconds: number;
  /** The Gatehouse processes' RSS once ready, before fixtures and load (absent in runs before it was reported). */
  startupRssMb?: number;
  peakRssMb: number;
  results: ScenarioResult[];
}

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/** Queries per request as printed, and as judged: background timers (the key reload every 5 s, sweeps) add a few
 *  queries to any run, which must not turn a printed 0.00 into "queries > 0". */
export function printedQueries(r: ScenarioResult): string | undefined {
  return r.gatehouse.queriesPerRequest?.toFixed(2);
}

export function printedDatabaseMs(r: ScenarioResult): string | undefined {
  return r.gatehouse.databaseMsPerRequest?.toFixed(3);
}

function verdict(r: ScenarioResult): string {
  const errors = r.gatehouse.errors + r.gatehouse.unexpected;
  if (errors) return `ERRORS: ${errors} failed requests; the numbers do not count`;
  const t = r.target;
  if (!t) return 'report';
  const fails: string[] = [];
  if (t.rps !== undefined && r.gatehouse.rps < t.rps) fails.push(`req/s < ${t.rps}`);
  if (t.p99 !== undefined && r.gatehouse.p99 > t.p99) fails.push(`p99 > ${t.p99} ms`);
  if (t.queries !== undefined && Number(printedQueries(r) ?? 0) > t.queries) fails.push(`queries > ${t.queries}`);
  if (t.ratio !== undefined && r.baseline && r.gatehouse.rps / r.baseline.rps < t.ratio)
    fails.push(`ratio < ${t.ratio}`);
  return fails.length ? `MISSED: ${fails.join(', ')}` : 'met';
}

export function toMarkdown(run: Run): string {
  const head =
    '| scenario | conns | req/s | p50 ms | p99 ms | errors | queries/req | db ms/req | peak RSS MB | ' +
    'baseline req/s | ratio | target |\n|---|---|---|---|---|---|---|---|---|---|---|---|';
  const rows = run.results.map((r) => {
    const g = r.gatehouse;
    const ratio = r.baseline ? (g.rps / r.baseline.rps).toFixed(2) : '';
    return (
      `| ${r.scenario} | ${r.connections} | ${Math.round(g.rps)} | ${g.p50} | ${g.p99} | ` +
      `${g.errors + g.unexpected} | ${printedQueries(r) ?? ''} | ${printedDatabaseMs(r) ?? ''} | ` +
      `${g.peakRssMb ?? ''} | ${r.baseline ? Math.round(r.baseline.rps) : ''} | ${ratio} | ${verdict(r)} |`
    );
  });
  return (
    `# Gatehouse benchmark, ${run.startedAt}\n\nDatabase: ${run.database}; ${run.machine.cpus} vCPU; ` +
    `Node ${run.machine.node}; ${run.durationSeconds} s per scenario after warm-up; ` +
    `${run.workers ?? 1} worker process(es); ` +
    `${run.databaseSettings ? `PostgreSQL: ${run.databaseSettings}; ` : ''}` +
    `${memoryFacts(run)}. ` +
    `Load generator, database and server share the machine.\n\n${head}\n${rows.join('\n')}\n`
  );
}

export function writeRun(run: Run): string {
  const base = resultsBase(run, (run.workers ?? 1) > 1 ? `-${run.workers}-workers` : '');
  writeFileSync(`${base}.json`, `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(`${base}.md`, toMarkdown(run));
  return base;
}

/** The comparison of runs with different worker counts, next to their own files. */
export function writeComparison(runs: Run[]): string {
  const first = runs[0]!;
  const path = `${resultsBase(first, `-workers-${runs.map((r) => r.workers ?? 1).join('-')}`)}.md`;
  const rounds = first.results[0]?.rounds?.length ?? 1;
  writeFileSync(
    path,
    `# Gatehouse with ${runs.map((r) => r.workers ?? 1).join(' and ')} worker processes, ${first.startedAt}\n\n` +
      `Database: ${first.database}${first.databaseSettings ? ` (${first.databaseSettings})` : ''}; ` +
      `${first.machine.cpus} vCPU; Node ${first.machine.node}; ${rounds} round(s) of ` +
      `${first.durationSeconds} s per scenario and worker count, measured in turn. Load generator, database and ` +
      `servers share the machine.\n\n${comparison(runs)}`,
  );
  return path;
}

function resultsBase(run: Run, suffix: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  return `${RESULTS_DIR}${run.startedAt.replace(/[:.]/g, '-')}-${run.database}${suffix}`;
}

/** Runs of one invocation with different GATEHOUSE_WORKERS side by side (`--workers 1,2`): each count's median
 *  req/s, its rounds, and the ratio to the first count; then where the CPU went in each count's median round, and
 *  the most any worker count could gain over the first on this machine: all its CPU over what the first left idle
 *  busy (bench/machine-cpu.ts), at the first count's CPU per request. */
export function comparison(runs: Run[]): string {
  const first = runs[0]!;
  const counts = runs.map((r) => r.workers ?? 1);
  const head =
    `| scenario | ${counts.map((w) => `${w} worker(s): req/s (rounds)`).join(' | ')} | ` +
    `${counts
      .slice(1)
      .map((w) => `${w} vs ${counts[0]}`)
      .join(' | ')} | baseline req/s, each round | ` +
    `${counts.map((w) => `CPU % with ${w}: idle / event loops / thread pool`).join(' | ')} | most gain possible |\n` +
    `|${'---|'.repeat(3 * runs.length + 2)}`;
  const capacity = first.machine.cpus * 100;
  const rows = first.results.map((r, i) => {
    const rates = runs.map((run) => run.results[i]!);
    const cell = (x: ScenarioResult) =>
      `${Math.round(x.gatehouse.rps)} (${(x.rounds ?? [x.gatehouse.rps]).map(Math.round).join(' / ')})`;
    const ratios = rates.slice(1).map((x) => (x.gatehouse.rps / r.gatehouse.rps).toFixed(2));
    const baseline = (r.baselineRounds ?? []).map(Math.round).join(' / ');
    const cpu = (x: ScenarioResult) =>
      x.gatehouse.cpu ? `${x.gatehouse.cpu.idle} / ${x.gatehouse.cpu.eventLoops} / ${x.gatehouse.cpu.threadPool}` : '';
    const idle = r.gatehouse.cpu?.idle;
    const ceiling = idle === undefined ? '' : `${(capacity / Math.max(1, capacity - idle)).toFixed(2)}x`;
    const cells = [r.scenario, ...rates.map(cell), ...ratios, baseline, ...rates.map(cpu), ceiling];
    return `| ${cells.join(' | ')} |`;
  });
  return `${head}\n${rows.join('\n')}\n`;
}
