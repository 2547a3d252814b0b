// Where the machine's CPU went during a measurement (issue 24, "Every core"): how much of it stayed idle, and how the
// Gatehouse processes spent theirs, by kind of thread. A second worker can only serve more if the machine had CPU to
// spare with one: the idle share bounds the gain (1 / (1 - busy)), whatever the worker count. Read from proc(5), so
// it describes this machine only (the bench runs on loopback).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU, in % of one vCPU, over a measurement: the machine's idle share and the Gatehouse processes' threads. */
export interface CpuUse {
  /** The whole machine's idle time (idle and iowait), % of one vCPU (2 vCPUs idle throughout: 200). */
  idle: number;
  /** The JavaScript threads (one event loop per process): what one more worker adds. */
  eventLoops: number;
  /** libuv's thread pool: WebCrypto's signatures and verifications, argon2id, zlib. */
  threadPool: number;
  /** Every other Gatehouse thread: V8's compiler and garbage collector. */
  other: number;
}

interface Reading {
  at: number;
  idleTicks: number;
  threads: { eventLoops: number; threadPool: number; other: number };
}

/** The machine's idle ticks and the ticks each kind of thread of `pids` has spent so far. */
export function readCpu(pids: number[]): Reading {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const threads = { eventLoops: 0, threadPool: 0, other: 0 };
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // a thread that ended between the listing and the read
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(rest[11]) + Number(rest[12]); // utime, stime
      if (Number(tid) === pid) threads.eventLoops += ticks;
      else if (name.startsWith('libuv-worker')) threads.threadPool += ticks;
      else threads.other += ticks;
    }
  }
  return { at: performance.now(), idleTicks: Number(fields[3]) + Number(fields[4]), threads };
}

/** The CPU used between two readings, in % of one vCPU. */
export function cpuUseBetween(before: Reading, after: Reading): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const percent = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / seconds) * 100);
  return {
    idle: percent(after.idleTicks - before.idleTicks),
    eventLoops: percent(after.threads.eventLoops - before.threads.eventLoops),
    threadPool: percent(after.threads.threadPool - before.threads.threadPool),
    other: percent(after.threads.other - before.threads.other),
  };
}
