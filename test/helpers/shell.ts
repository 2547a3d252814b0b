// One long-lived bash, as a reader's terminal: commands are fed over standard input one at a time, so variables set by
// one command are there for the next, and each command's exit code, stdout and stderr are read back up to a marker
// printed after it. Each command's standard input is /dev/null (a terminal's would be the person typing), and
// pipefail is on, so a failing step inside a pipeline fails the command rather than passing unseen.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface Shell {
  /** Runs one command (it may span lines); rejects when it does not finish within timeoutMs or bash exits. */
  run(command: string, timeoutMs?: number): Promise<CommandResult>;
  close(): void;
}

export function openShell(cwd: string, env: Record<string, string>): Shell {
  const child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exited = false;
  let onChange = () => {};
  child.stdout.on('data', (d) => {
    stdout += String(d);
    onChange();
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
    onChange();
  });
  child.on('exit', () => {
    exited = true;
    onChange();
  });
  child.stdin.write('set -o pipefail\n');

  return {
    run(command, timeoutMs = 60_000) {
      const marker = `__done_${randomBytes(8).toString('hex')}`;
      stdout = stderr = '';
      // The braces keep assignments in this shell (no subshell) and give the whole command one redirection.
      child.stdin.write(`{ ${command}\n} </dev/null; printf '\\n${marker} %d\\n' $?; printf '\\n${marker}\\n' >&2\n`);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          onChange = () => {};
          reject(new Error(`no answer within ${timeoutMs} ms; stdout so far:\n${stdout}\nstderr so far:\n${stderr}`));
        }, timeoutMs);
        onChange = () => {
          const status = new RegExp(`\\n${marker} (\\d+)\\n`).exec(stdout);
          const errEnd = stderr.indexOf(`\n${marker}\n`);
          if (status && errEnd >= 0) {
            clearTimeout(timer);
            onChange = () => {};
            resolve({
              status: Number(status[1]),
              stdout: stdout.slice(0, status.index),
              stderr: stderr.slice(0, errEnd),
            });
          } else if (exited) {
            clearTimeout(timer);
            reject(new Error(`bash exited; stdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        onChange();
      });
    },
    close() {
      child.stdin.end();
      if (!exited) child.kill('SIGKILL');
    },
  };
}

export interface BackgroundCommand {
  output(): string;
  /** The exit code once it has exited, else undefined. */
  exitCode(): number | null | undefined;
  /** Ctrl-C to its whole process group, as in a terminal; SIGKILL after timeoutMs. Resolves once it has exited. */
  interrupt(timeoutMs?: number): Promise<void>;
}

/** A command left running in a terminal of its own (`npm start` in the first terminal), in its own process group. */
export function runInBackground(command: string, cwd: string, env: Record<string, string>): BackgroundCommand {
  const child = spawn('bash', ['--noprofile', '--norc', '-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += String(d);
  });
  child.stderr.on('data', (d) => {
    output += String(d);
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exitCode = signal ? null : code;
      resolve();
    }),
  );
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* already gone */
    }
  };
  return {
    output: () => output,
    exitCode: () => exitCode,
    async interrupt(timeoutMs = 15_000) {
      if (exitCode !== undefined) return;
      signalGroup('SIGINT');
      const timer = setTimeout(() => signalGroup('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
