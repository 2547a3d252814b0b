// `npm run bench`: Gatehouse against a bare oidc-provider baseline on the same machine, scenario by scenario,
// alternating the two so that machine noise hits both alike. `--smoke` runs every scenario for a moment and fails
// on any error (CI); a full run writes bench/results/<time>-<database>.{json,md}.
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type GatehouseTarget, startGatehouse } from './gatehouse.ts';
import { startBaseline } from './baseline-target.ts';
import { consoleTable, timeConsole } from './console-pages.ts';
import { comparison, type Run, type ScenarioResult, toMarkdown, writeComparison, writeRun } from './report.ts';
import { scaleReport, scaleSize, type SweepPair, type SweepWindow, writeScaleReport } from './scale-report.ts';
import { expiredRows } from './scale-seed.ts';
import { serverSettings } from './database-time.ts';
import {
  args,
  consoleSelected,
  DURATION,
  PAGE_REQUESTS,
  PAGE_WARM_UP,
  pageSelected,
  ROUNDS,
  selected,
  smoke,
  step,
  WORKERS,
} from './options.ts';
import { prepare, type Scenario, scenarioList } from './scenarios.ts';
import { clientCredentialsToken } from './requests.ts';
import { failOnErrors, failOnPageErrors, runScenario } from './measure.ts';
import { memoryFacts, peakRssMb } from './memory.ts';
import { type Db, openDb } from '../src/platform/db.ts';
import { sweepExpired } from '../src/oidc/payload-store.ts';

const randomPort = () => 18000 + Math.floor(Math.random() * 2000);

async function main(): Promise<void> {
  if (args.includes('--scale')) return benchAtScale();
  if (WORKERS.length > 1) return benchWorkers();
  step('starting gatehouse and its fixtures');
  const cpuProfileDir = args.includes('--cpu-prof')
    ? fileURLToPath(new URL('./results/profiles/', import.meta.url))
    : undefined;
  const gh: GatehouseTarget = await startGatehouse(randomPort(), { cpuProfileDir, workers: WORKERS[0] });
  step(`start-up RSS ${gh.startupRssMb} MB`);
  step('starting the baseline');
  const bl = await startBaseline();
  const results: ScenarioResult[] = [];
  try {
    const prepared = await prepare(gh);
    const scenarios = scenarioList(prepared, {
      ...bl,
      token: await clientCredentialsToken(bl.url, bl.clientCredentials),
    });
    let runPeakRssMb = peakRssMb(gh.pid); // start-up and fixtures
    for (const s of selected(scenarios)) {
      const result = await runScenario(s, gh, bl);
      runPeakRssMb = Math.max(runPeakRssMb, result.gatehouse.peakRssMb ?? 0);
      results.push(result);
    }
    const run: Run = {
      startedAt: new Date().toISOString(),
      database: gh.database,
      machine: { cpus: availableParallelism(), node: process.version },
      databaseSettings: gh.databaseUrl ? await serverSettings(gh.databaseUrl) : undefined,
      workers: WORKERS[0],
      durationSeconds: DURATION,
      startupRssMb: gh.startupRssMb,
      peakRssMb: runPeakRssMb,
      results,
    };
    if (results.length) process.stdout.write(`\n${toMarkdown(run)}`);
    if (consoleSelected) {
      const pages = await timeConsole([{ gh }], PAGE_REQUESTS, PAGE_WARM_UP, pageSelected);
      process.stdout.write(`\n${consoleTable(pages, [gh.database])}\n`);
      if (smoke) failOnPageErrors(pages);
      // the peak since the last scenario's reset: that scenario and the console's pages
      run.peakRssMb = Math.max(run.peakRssMb, peakRssMb(gh.pid));
    }
    process.stdout.write(`\n${memoryFacts(run)}\n`);
    if (smoke) failOnErrors(results);
    else if (results.length) process.stdout.write(`\nwritten to ${writeRun(run)}.{json,md}\n`);
  } finally {
    bl.stop();
    await gh.stop();
    if (cpuProfileDir)
      process.stdout.write(
        `\nCPU profile of the Gatehouse process in ${cpuProfileDir} (summary: node bench/profile-summary.ts <file>)\n`,
      );
  }
}

/** `--workers 1,2`: each scenario against every worker count in turn, ROUNDS times, and the baseline once a round;
 *  a count's figure is its round of median req/s. Writes each count's run and their comparison. */
async function benchWorkers(): Promise<void> {
  const targets: GatehouseTarget[] = [];
  const bl = await startBaseline();
  try {
    for (const workers of WORKERS) targets.push(await startGatehouse(randomPort(), { workers }));
    const blPrepared = { ...bl, token: await clientCredentialsToken(bl.url, bl.clientCredentials) };
    const lists: Scenario[][] = [];
    for (const gh of targets) lists.push(selected(scenarioList(await prepare(gh), blPrepared)));
    const results: ScenarioResult[][] = targets.map(() => []);
    const everyRound: ScenarioResult[] = [];
    for (const [i, s] of lists[0]!.entries()) {
      const rounds: ScenarioResult[][] = targets.map(() => []);
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [t, gh] of targets.entries()) {
          // when each measurement ran, to match with CPU samples taken beside the bench
          step(`${new Date().toISOString()} ${s.name}, ${WORKERS[t]} worker(s), round ${round}`);
          const result = await runScenario(lists[t]![i]!, gh, t === 0 ? bl : undefined);
          rounds[t]!.push(result);
          everyRound.push(result);
        }
      }
      for (const [t, measured] of rounds.entries()) {
        const byRate = [...measured].sort((a, b) => a.gatehouse.rps - b.gatehouse.rps);
        results[t]!.push({
          ...byRate[Math.floor(byRate.length / 2)]!,
          baseline: rounds[0]!.find((r) => r.baseline)?.baseline,
          rounds: measured.map((r) => r.gatehouse.rps),
          baselineRounds: s.baseline ? rounds[0]!.map((r) => r.baseline!.rps) : undefined,
        });
      }
    }
    const startedAt = new Date().toISOString();
    const settings = targets[0]!.databaseUrl ? await serverSettings(targets[0]!.databaseUrl) : undefined;
    const runs: Run[] = targets.map((gh, t) => ({
      startedAt,
      database: gh.database,
      machine: { cpus: availableParallelism(), node: process.version },
      databaseSettings: settings,
      workers: WORKERS[t],
      durationSeconds: DURATION,
      startupRssMb: gh.startupRssMb,
      peakRssMb: Math.max(...results[t]!.map((r) => r.gatehouse.peakRssMb ?? 0)),
      results: results[t]!,
    }));
    process.stdout.write(`\n${comparison(runs)}`);
    if (smoke) failOnErrors(everyRound);
    else {
      for (const run of runs) process.stdout.write(`\nwritten to ${writeRun(run)}.{json,md}\n`);
      process.stdout.write(`comparison written to ${writeComparison(runs)}\n`);
    }
  } finally {
    bl.stop();
    for (const gh of targets) await gh.stop();
  }
}

/**
 * `--scale`: every scenario on a Gatehouse whose database is seeded like a large deployment
 * (LARGE_DEPLOYMENT), alternating with one on an empty database, so that machine noise hits both alike; then each
 * again on the seeded one, still and at once while the sweep of expired tokens runs through the measured window
 * (`--rounds N` times, alternating).
 * `--scale-size orgs,users,apps,tokens` seeds another size (a quicker look); with `--smoke` too, any error fails the
 * run and no report is written.
 */
async function benchAtScale(): Promise<void> {
  const size = scaleSize(args);
  // the sweep runs only where the bench runs it (sweepWindow)
  const noSweep = { GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: String(24 * 3600_000) };
  step(`seeding ${JSON.stringify(size)}`);
  const reuse = args.includes('--reuse-seed');
  const scaled = await startGatehouse(randomPort(), { seed: { size, progress: step, reuse }, env: noSweep });
  const empty = await startGatehouse(randomPort(), { env: noSweep });
  // named apart from Gatehouse's pool, so the database CPU per request leaves the sweep out (databaseCpu)
  const sweeperUrl = new URL(scaled.databaseUrl!);
  sweeperUrl.searchParams.set('application_name', 'gatehouse-bench-sweep');
  const sweeper = await openDb({
    kind: 'postgres',
    url: sweeperUrl.toString(),
    poolSize: 1,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 60_000,
  });
  try {
    const onEmpty = selected(scenarioList(await prepare(empty), undefined));
    const onScaled = selected(scenarioList(await prepare(scaled), undefined));
    const pairs: { empty: ScenarioResult; scaled: ScenarioResult }[] = [];
    for (const [i, s] of onScaled.entries())
      pairs.push({ empty: await runScenario(onEmpty[i]!, empty), scaled: await runScenario(s, scaled) });
    // the console's pages, one request at a time, on the still database
    const loadBefore = loadavg()[0]!;
    const pages = consoleSelected
      ? await timeConsole([{ gh: empty }, { gh: scaled, size }], PAGE_REQUESTS, PAGE_WARM_UP, pageSelected)
      : [];
    const pageLoad = [loadBefore, loadavg()[0]!];
    const sweepPairs: SweepPair[] = [];
    if (onScaled.length) step('each scenario on the seeded database again, still and then while the sweep runs');
    for (const s of selected(scenarioList(await prepare(scaled), undefined))) {
      const pair: SweepPair = { still: [], sweeping: [], sweep: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        pair.still.push(await runScenario(s, scaled));
        pair.sweeping.push(
          await runScenario(s, scaled, undefined, async (seconds) => {
            pair.sweep.push(await sweepWindow(sweeper, seconds));
          }),
        );
      }
      sweepPairs.push(pair);
    }
    const report = scaleReport({
      seed: scaled.seed!,
      pairs,
      sweepPairs,
      sweepRounds: ROUNDS,
      expired: expiredRows(size),
      durationSeconds: DURATION,
      databaseSettings: await serverSettings(scaled.databaseUrl!),
      consolePages: pages,
      pageRequests: PAGE_REQUESTS,
      pageLoad,
    });
    process.stdout.write(`\n${report}`);
    if (smoke) failOnPageErrors(pages);
    if (smoke)
      failOnErrors([
        ...pairs.flatMap((p) => [p.empty, p.scaled]),
        ...sweepPairs.flatMap((p) => [...p.still, ...p.sweeping]),
      ]);
    else process.stdout.write(`\nwritten to ${writeScaleReport(report)}\n`);
  } finally {
    await sweeper.close();
    await empty.stop();
    await scaled.stop();
  }
}

/**
 * The background sweep as a deployment runs it (sweepExpired: the same batches and pauses) for `seconds`, from the
 * bench on a connection of its own: the server's schedule runs it at most half of each interval, so a measured window
 * would hold an unknown share of it (the p99 target holds while it runs too).
 */
async function sweepWindow(db: Db, seconds: number): Promise<SweepWindow> {
  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  const rows = await sweepExpired(db, { until });
  return { rows, seconds: (performance.now() - started) / 1000, ranOut: Date.now() < until };
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.message}\n`);
    process.exit(1);
  },
);
