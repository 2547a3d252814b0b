// Runs Gatehouse as a separate process, as an operator would (`node src/main.ts`), for tests of start-up,
// locking and signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface GatehouseProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (bounded by timeoutMs; kills the process when exceeded). */
  exited(timeoutMs?: number): Promise<number | null>;
}

export function spawnGatehouse(env: Record<string, string>): GatehouseProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += String(d);
  });
  child.stderr!.on('data', (d) => {
    out += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited: (timeoutMs = 20_000) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      return exit.finally(() => clearTimeout(timer));
    },
  };
}

/** Polls url until it answers 200 (bounded). */
export async function waitForOk(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}
