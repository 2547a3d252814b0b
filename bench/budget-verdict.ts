// The CPU budget's verdict (bench/budget.ts, and the full bench's report): each hot path's multiple against the
// committed reference, bench/budget-reference.json, with the margin that noise never crosses and +30% always does.
import { readFileSync } from 'node:fs';
import type { BudgetMachine, HotPath, PathCost } from './cpu-budget.ts';

/** How far a multiple may rise over its reference before the check fails. On the quiet 2-vCPU machine the medians of
 *  two runs differed by at most 16% (code exchange; most paths by under 9%), so 20% leaves room for that noise and
 *  still catches a path that costs 30% more; budget.ts measures a failing path again before it fails the check. */
export const MARGIN = 0.2;
export const DEFAULT_ROUNDS = 5;
export const REFERENCE = new URL('./budget-reference.json', import.meta.url);

export interface BudgetReference {
  takenAt: string;
  machine: BudgetMachine;
  rounds: number;
  refresh: string;
  paths: Record<HotPath, { multiple: number; rounds: number[] }>;
}

export function readReference(): BudgetReference | undefined {
  try {
    return JSON.parse(readFileSync(REFERENCE, 'utf8')) as BudgetReference;
  } catch {
    return undefined;
  }
}

export type Verdict = 'pass' | 'FAIL' | 'cheaper' | 'no reference';

export function verdictOf(cost: PathCost, reference: BudgetReference | undefined): Verdict {
  const ref = reference?.paths[cost.path]?.multiple;
  if (ref === undefined) return 'no reference';
  if (cost.multiple > ref * (1 + MARGIN)) return 'FAIL';
  if (cost.multiple < ref * (1 - MARGIN)) return 'cheaper';
  return 'pass';
}

/** The budget's table, as printed and in the bench's report (bench/report.ts). */
export function budgetTable(paths: PathCost[], reference: BudgetReference | undefined): string {
  const head =
    '| path | Gatehouse CPU ms (server + PostgreSQL) | divisor CPU ms | multiple (rounds) | reference | margin | ' +
    'verdict |\n|---|---|---|---|---|---|---|';
  const rows = paths.map((c) => {
    const ref = reference?.paths[c.path]?.multiple;
    const verdict = verdictOf(c, reference);
    const hint = verdict === 'cheaper' ? ' (lower the reference: --write-reference)' : '';
    const divisor = c.divisor === 'argon2id' ? 'one argon2id verification' : 'bare oidc-provider';
    return (
      `| ${c.path} | ${(c.serverMs + c.databaseMs).toFixed(3)} (${c.serverMs.toFixed(3)} + ` +
      `${c.databaseMs.toFixed(3)}) | ${c.divisorMs.toFixed(3)} (${divisor}) | ` +
      `${c.multiple.toFixed(2)} (${c.rounds.map((r) => r.toFixed(2)).join(', ')}) | ${ref?.toFixed(2) ?? '-'} | ` +
      `+${Math.round(MARGIN * 100)}% | ${verdict}${hint} |`
    );
  });
  return `${head}\n${rows.join('\n')}\n`;
}
