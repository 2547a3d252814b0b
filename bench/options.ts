// The command line of `npm run bench` (docs/performance.md), read once: how long and how hard each scenario runs,
// which scenarios and console pages run, how many rounds, and against how many worker processes.
export const args = process.argv.slice(2);
/** The value after `--name`, if given. */
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

export const smoke = args.includes('--smoke');
export const DURATION = smoke ? 1 : Number(option('--duration')) || 10;
export const WARMUP = smoke ? 0 : 2;
// `--connections N`: the closed-loop connections of the scenarios that do not name their own (32), e.g. to see how
// a p99 follows the queue of requests in flight (Little's law)
export const CONNECTIONS = smoke ? 4 : Number(option('--connections')) || 32;
// `--workers 1,2`: one Gatehouse per GATEHOUSE_WORKERS count, measured in turn, scenario by scenario,
// `--rounds R` times each, so that the machine's noise hits every count alike. `--workers 2` alone: the usual bench
// against two workers.
export const WORKERS = (option('--workers') ?? '1').split(',').map(Number);
export const ROUNDS = Number(option('--rounds')) || 1;
const only = option('--only')?.split(',');
/** `--only A,B`: the scenarios whose names start so. */
export const selected = <T extends { name: string }>(scenarios: T[]) =>
  scenarios.filter((x) => !only || only.some((o) => x.name.startsWith(o)));
// The console's pages (bench/console-pages.ts) are one set, `--only console` alone; `--page-requests N`
// measured requests per page (300; 3 in a smoke run), one at a time, after a tenth as many to warm up.
const CONSOLE_SET = 'console pages';
export const consoleSelected = !only || only.some((o) => CONSOLE_SET.startsWith(o));
export const PAGE_REQUESTS = smoke ? 3 : Number(option('--page-requests')) || 300;
export const PAGE_WARM_UP = Math.max(1, Math.round(PAGE_REQUESTS / 10));
// `--pages Overview,Users`: only the console pages whose names start so (e.g. to profile one with --cpu-prof)
const PAGES = option('--pages')?.split(',');
export const pageSelected = PAGES && ((name: string) => PAGES.some((p) => name.startsWith(p)));
/** Progress, on stderr: the tables go to stdout. */
export const step = (what: string) => process.stderr.write(`bench: ${what}\n`);
// The CPU budget (bench/cpu-budget.ts) in a full run: `--only "cpu budget"` alone, or with the rest
export const budgetSelected = !smoke && (!only || only.some((o) => 'cpu budget'.startsWith(o)));
