// Runs Gatehouse as a separate process, as an operator would (`node src/main.ts`), for tests of start-up,
// locking and signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface GatehouseProcess {
  child: ChildProcess;
  output(): string;
  /** Ctrl-C, as a person stops it: SIGINT (on a terminal, through the terminal). */
  interrupt(): void;
  /** Resolves with the exit code (bounded by timeoutMs; kills the process when exceeded). */
  exited(timeoutMs?: number): Promise<number | null>;
}

/** terminal: the process gets a pseudo-terminal as `npm start` in a terminal does (util-linux `script`; -e passes on
 *  its exit code); its output reaches the test through the terminal, with its line endings (\r\n). */
export function spawnGatehouse(env: Record<string, string>, options: { terminal?: boolean } = {}): GatehouseProcess {
  const child = options.terminal
    ? spawn('script', ['-q', '-e', '-c', `exec "${process.execPath}" "${MAIN}"`, '/dev/null'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [MAIN], {
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
    interrupt: () => (options.terminal ? child.stdin!.write('\x03') : child.kill('SIGINT')),
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

export interface ToolProcess {
  /** What the tool wrote to stdout and stderr so far. */
  log(): string;
  /** Set when the tool could not be started (not installed). */
  spawnError(): Error | undefined;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/** Runs a system tool in the foreground (PgBouncer, HAProxy; /usr/sbin added to PATH, where Debian puts them). */
export function spawnTool(command: string, args: string[], env: Record<string, string> = {}): ToolProcess {
  const child = spawn(command, args, {
    env: { ...env, PATH: `${process.env.PATH ?? ''}:/usr/sbin` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => {
    log += String(d);
  });
  child.stderr!.on('data', (d) => {
    log += String(d);
  });
  let error: Error | undefined;
  child.on('error', (e) => {
    error = e;
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    log: () => log,
    spawnError: () => error,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
