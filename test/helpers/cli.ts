// Runs the operator CLI (`node src/cli/main.ts`) as a separate process without blocking the test's event loop, so
// that a server in the test process (or a stand-in for one) can answer it meanwhile.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The command's exit code and output; `input` is its standard input (closed after it). */
export function runCli(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

export interface DoctorCheck {
  check: string;
  status: string;
  detail: string;
}

/** doctor's rows as check:status. */
export const statuses = (checks: DoctorCheck[]) => checks.map((c) => `${c.check}:${c.status}`);

/** doctor's rows on a healthy setup: the issuer ok while the server runs, info ("server not running") when not. */
export const healthy = (issuer: 'ok' | 'info') => [
  'configuration:ok',
  'database:ok',
  'schema:ok',
  'instance:ok',
  'signing keys:ok',
  `issuer:${issuer}`,
];
