// The Gatehouse processes' resident memory, read from proc(5): at start-up (ready, before any fixture or load) and
// the peak (VmHWM), and how the bench reports them.
import { readFileSync, writeFileSync } from 'node:fs';

/** The Gatehouse process and, with workers, the worker processes it forked (proc(5) task/<tid>/children). */
export function processes(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(' ').map(Number) : [])];
}

function summedMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const pattern = new RegExp(`${field}:\\s+(\\d+)`);
  const kb = processes(pid)
    .map((p) => Number(pattern.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0))
    .reduce((a, b) => a + b, 0);
  return Math.round(kb / 1024);
}

/** The resident memory of every Gatehouse process now, summed. */
export function rssMb(pid: number): number {
  return summedMb(pid, 'VmRSS');
}

/** The sum of the peaks of every Gatehouse process: what the deployment needs at most. */
export function peakRssMb(pid: number): number {
  return summedMb(pid, 'VmHWM');
}

/** Starts a new peak (VmHWM) for each process, so each scenario reports its own (proc(5), clear_refs value 5). */
export function resetPeakRss(pid: number): void {
  for (const p of processes(pid)) writeFileSync(`/proc/${p}/clear_refs`, '5');
}

/** What a run's report says of memory: the start-up RSS (what the modules and the first start cost) and the peak
 *  over the whole run (what a container must allow, docs/operations.md). */
export function memoryFacts(run: { startupRssMb?: number; peakRssMb: number }): string {
  const startup = run.startupRssMb === undefined ? '' : `start-up RSS ${run.startupRssMb} MB (ready, before load); `;
  const over = "start-up, fixtures, every scenario and the console's pages when they ran";
  return `${startup}peak RSS of the Gatehouse processes ${run.peakRssMb} MB (${over})`;
}
