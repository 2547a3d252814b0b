// One measured scenario: load on Gatehouse (and the baseline), with the queries, database CPU, peak RSS and CPU
// use counted around it; and the smoke run's failure rules.
import { runFlowLoad, runHttpLoad, type HttpScenario, type LoadResult } from './load.ts';
import type { GatehouseTarget } from './gatehouse.ts';
import type { Baseline } from './baseline-target.ts';
import { cpuBetween, databaseCpu } from './database-time.ts';
import { cpuUseBetween, readCpu } from './machine-cpu.ts';
import { peakRssMb, processes, resetPeakRss } from './memory.ts';
import type { PageTiming } from './console-pages.ts';
import { printedDatabaseMs, printedQueries, type ScenarioResult } from './report.ts';
import { CONNECTIONS, DURATION, smoke, WARMUP } from './options.ts';
import type { Scenario } from './scenarios.ts';

async function queries(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gatehouse_db_queries_total (\d+)/m.exec(text)?.[1] ?? 0);
}

async function measure(
  url: string,
  scenario: HttpScenario | (() => Promise<void>),
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  return typeof scenario === 'function'
    ? runFlowLoad(scenario, connections, seconds)
    : runHttpLoad(url, scenario, connections, seconds);
}

/** One scenario on one Gatehouse (and on the baseline, alternating, when given): warm-up, then the measured run;
 *  `alongside` runs through the measured window only (not the warm-up), given its length in seconds. */
export async function runScenario(
  s: Scenario,
  gh: GatehouseTarget,
  bl?: Baseline,
  alongside?: (seconds: number) => Promise<unknown>,
): Promise<ScenarioResult> {
  const connections = smoke ? Math.min(CONNECTIONS, s.connections ?? CONNECTIONS) : (s.connections ?? CONNECTIONS);
  const ghScenario = await s.gatehouse();
  const blScenario = bl && s.baseline && (await s.baseline());
  resetPeakRss(gh.pid);
  // a scenario with a fixed supply of requests (minted codes) has none to spare for a warm-up
  if (WARMUP && !(typeof ghScenario === 'object' && ghScenario.requests)) {
    await measure(gh.url, ghScenario, connections, WARMUP);
    if (blScenario) await measure(bl.url, blScenario, connections, WARMUP);
  }
  const q0 = await queries(gh.url);
  const d0 = gh.databaseUrl ? await databaseCpu(gh.databaseUrl) : undefined;
  const cpu0 = readCpu(processes(gh.pid));
  const side = alongside?.(DURATION);
  const g = await measure(gh.url, ghScenario, connections, DURATION);
  const cpu = cpuUseBetween(cpu0, readCpu(processes(gh.pid)));
  await side;
  const d1 = gh.databaseUrl ? await databaseCpu(gh.databaseUrl) : undefined;
  const q1 = await queries(gh.url);
  const b = blScenario ? await measure(bl.url, blScenario, connections, DURATION) : undefined;
  const peak = peakRssMb(gh.pid);
  const result: ScenarioResult = {
    scenario: s.name,
    connections,
    gatehouse: {
      ...g,
      queriesPerRequest: g.requests ? (q1 - q0) / g.requests : 0,
      databaseMsPerRequest: d0 && d1 && g.requests ? cpuBetween(d0, d1) / g.requests : undefined,
      peakRssMb: peak,
      cpu,
    },
    baseline: b,
    target: s.target,
  };
  process.stdout.write(
    `${s.name}: ${Math.round(g.rps)} req/s p50 ${g.p50} ms p99 ${g.p99} ms errors ${g.errors + g.unexpected} ` +
      `queries/req ${printedQueries(result)} db ms/req ${printedDatabaseMs(result) ?? '-'} peak RSS ${peak} MB ` +
      `CPU % idle ${cpu.idle} event loops ${cpu.eventLoops} thread pool ${cpu.threadPool}` +
      `${b ? ` | baseline ${Math.round(b.rps)} req/s` : ''}\n`,
  );
  return result;
}

/** `--smoke` (CI): any failed request, of Gatehouse or of the baseline, or a scenario that served none, fails the
 *  run; a full run reports them in its table instead. */
export function failOnErrors(results: ScenarioResult[]): void {
  const failed = results.filter(
    (r) =>
      r.gatehouse.errors + r.gatehouse.unexpected > 0 ||
      r.gatehouse.requests === 0 ||
      (r.baseline && r.baseline.errors + r.baseline.unexpected > 0),
  );
  if (failed.length) throw new Error(`smoke run had errors in: ${failed.map((r) => r.scenario).join(', ')}`);
}

/** `--smoke` (CI): a console page that failed fails the run. */
export function failOnPageErrors(timings: PageTiming[][]): void {
  const failed = timings.flat().filter((t) => t.errors > 0 || t.requests === 0);
  if (failed.length) throw new Error(`console pages had errors: ${failed.map((t) => t.page).join(', ')}`);
}
