// `npm run bench:budget` (PostgreSQL): the CPU budget of the hot paths (bench/cpu-budget.ts) against the committed
// reference, bench/budget-reference.json. Prints path / Gatehouse CPU ms / baseline CPU ms / multiple / reference /
// margin / verdict and exits 1 when a multiple exceeds its reference by more than the margin in two measurements, so
// a change that costs a hot path 30% more CPU fails CI. A path that got cheaper passes, with a hint to lower its
// reference.
//   DATABASE_URL=postgres://... npm run bench:budget [-- --rounds N] [--only refresh,userinfo] [--write-reference]
// --write-reference measures and writes the reference instead of judging (after a change that makes a path cheaper
// or, knowingly, dearer; on the machine CI runs on).
import { writeFileSync } from 'node:fs';
import { startGatehouse } from './gatehouse.ts';
import { HOT_PATHS, type HotPath, measureCpuBudget, median } from './cpu-budget.ts';
import {
  type BudgetReference,
  budgetTable,
  DEFAULT_ROUNDS,
  MARGIN,
  readReference,
  REFERENCE,
  verdictOf,
} from './budget-verdict.ts';

async function main(): Promise<number> {
  if (!process.env.DATABASE_URL) throw new Error('the CPU budget runs on PostgreSQL: set DATABASE_URL');
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const rounds = Number(option('--rounds')) || DEFAULT_ROUNDS;
  const only = option('--only')?.split(',');
  const write = args.includes('--write-reference');
  const started = performance.now();
  const progress = (what: string) =>
    process.stderr.write(`budget: ${Math.round((performance.now() - started) / 1000)} s ${what}\n`);
  progress('starting gatehouse and its fixtures');
  const gh = await startGatehouse(18000 + Math.floor(Math.random() * 2000));
  try {
    const { paths, machine } = await measureCpuBudget(gh, { rounds, only, progress });
    const reference = readReference();
    process.stdout.write(
      `CPU per request, ${rounds} round(s), ${machine.cpus} vCPU ${machine.cpuModel}, load ${machine.load
        .map((l) => l.toFixed(1))
        .join(' -> ')}\n\n${budgetTable(paths, write ? undefined : reference)}`,
    );
    if (write) {
      const written: BudgetReference = {
        takenAt: new Date().toISOString(),
        machine,
        rounds,
        refresh: 'DATABASE_URL=postgres://... npm run bench:budget -- --write-reference (on the machine CI runs on)',
        paths: Object.fromEntries(
          paths.map((c) => [
            c.path,
            { multiple: Number(c.multiple.toFixed(3)), rounds: c.rounds.map((r) => Number(r.toFixed(3))) },
          ]),
        ) as BudgetReference['paths'],
      };
      if (only && reference) written.paths = { ...reference.paths, ...written.paths };
      writeFileSync(REFERENCE, `${JSON.stringify(written, null, 2)}\n`);
      process.stdout.write(`\nreference written to ${REFERENCE.pathname}\n`);
      return 0;
    }
    if (!reference) throw new Error(`no reference at ${REFERENCE.pathname}: run with --write-reference first`);
    const missing = (Object.keys(HOT_PATHS) as HotPath[]).filter((p) => !reference.paths[p]);
    if (missing.length) throw new Error(`the reference has no multiple for ${missing.join(', ')}`);
    const overBudget = (costs: typeof paths) => costs.filter((c) => verdictOf(c, reference) === 'FAIL');
    let failed = overBudget(paths);
    if (failed.length) {
      // A path over the budget is measured again and judged on the median of both measurements' rounds: a window
      // the machine disturbed rarely repeats, a path made dearer does (docs/performance.md, "The CPU budget").
      progress(`over the budget, measured again: ${failed.map((c) => c.path).join(', ')}`);
      const again = await measureCpuBudget(gh, { rounds, only: failed.map((c) => c.path), progress });
      const both = again.paths.map((c) => {
        const all = [...failed.find((f) => f.path === c.path)!.rounds, ...c.rounds];
        return { ...c, rounds: all, multiple: median(all) };
      });
      process.stdout.write(`\nMeasured again, judged on both measurements' rounds:\n\n${budgetTable(both, reference)}`);
      failed = overBudget(both);
    }
    if (failed.length) {
      const over = (c: (typeof failed)[number]) =>
        `${c.path} ${c.multiple.toFixed(2)} > ${(reference.paths[c.path].multiple * (1 + MARGIN)).toFixed(2)}`;
      process.stdout.write(`\nCPU budget exceeded: ${failed.map(over).join('; ')}\n`);
      return 1;
    }
    process.stdout.write('\nCPU budget met\n');
    return 0;
  } finally {
    await gh.stop();
  }
}

if (import.meta.main)
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`budget failed: ${error.stack}\n`);
      process.exit(1);
    },
  );
