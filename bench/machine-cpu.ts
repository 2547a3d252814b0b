// CPU times from proc(5), for the bench's accounting: a process's CPU (bench/database-time.ts, bench/cpu-cost.ts), and
// where the machine's CPU went during a measurement (for GATEHOUSE_WORKERS): how much of it stayed idle, and how
// the Gatehouse processes spent theirs, by kind of thread. A second worker can only serve more if the machine had
// CPU to spare with one: the idle share bounds the gain (1 / (1 - busy)), whatever the worker count. It describes
// this machine only (the bench runs on loopback).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's or thread's name and CPU so far (utime + stime, in ticks), from its stat file. */
function readStat(path: string): { name: string; ticks: number } {
  const stat = readFileSync(path, 'utf8');
  const end = stat.lastIndexOf(')'); // the name may hold spaces and parentheses
  const fields = stat.slice(end + 2).split(' '); // from field 3, the state, on
  return { name: stat.slice(stat.indexOf('(') + 1, end), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** The CPU milliseconds a process (all its threads) has spent so far. */
export function processCpuMs(pid: number): number {
  return (readStat(`/proc/${pid}/stat`).ticks * 1000) / TICKS_PER_SECOND;
}

/** The CPU milliseconds a process's living threads have spent so far, to the nanosecond (the scheduler's
 *  sum_exec_runtime of each, proc(5) schedstat), where processCpuMs counts 10 ms ticks: the CPU budget's windows
 *  (bench/cpu-budget.ts) hold a fraction of a second. A thread that ended takes its time with it; the server's
 *  threads (event loop, thread pool, V8's helpers) live as long as it does. */
export function preciseCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ns / 1e6;
}

/** CPU, in % of one vCPU, over a measurement: the machine's idle share and the Gatehouse processes' threads. */
export interface CpuUse {
  /** The whole machine's idle time (idle and iowait), % of one vCPU (2 vCPUs idle throughout: 200). */
  idle: number;
  /** The JavaScript threads (one event loop per process): what one more worker adds. */
  eventLoops: number;
  /** libuv's thread pool: WebCrypto's signatures and verifications, argon2id, zlib. */
  threadPool: number;
}

type Reading = { at: number } & CpuUse;

/** The machine's idle ticks and the ticks the event loops and thread pools of `pids` have spent so far. */
export function readCpu(pids: number[]): Reading {
  const [, ...machine] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const reading = {
    at: performance.now(),
    idle: Number(machine[3]) + Number(machine[4]),
    eventLoops: 0,
    threadPool: 0,
  };
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let thread: { name: string; ticks: number };
      try {
        thread = readStat(`/proc/${pid}/task/${tid}/stat`);
      } catch {
        continue; // a thread that ended between the listing and the read
      }
      if (Number(tid) === pid) reading.eventLoops += thread.ticks;
      else if (thread.name.startsWith('libuv-worker')) reading.threadPool += thread.ticks;
    }
  }
  return reading;
}

/** The CPU used between two readings, in % of one vCPU. */
export function cpuUseBetween(before: Reading, after: Reading): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const percent = (key: keyof CpuUse) => Math.round(((after[key] - before[key]) / TICKS_PER_SECOND / seconds) * 100);
  return { idle: percent('idle'), eventLoops: percent('eventLoops'), threadPool: percent('threadPool') };
}
