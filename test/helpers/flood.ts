// Many requests at once from one loopback address, sent by a separate process (flood-worker.ts): a flood test
// measures how the server under test serves someone else meanwhile, which the flood's own client work must not
// distort.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressResponse } from './from-address.ts';

const WORKER = fileURLToPath(new URL('flood-worker.ts', import.meta.url));

export interface FloodResult {
  statuses: Record<number, number>;
  samples: Record<number, AddressResponse>;
}

/** Posts every body to url from `address`, all at once; resolves when every answer is in (bounded by timeoutMs). */
export function flood(
  address: string,
  url: string,
  headers: Record<string, string>,
  bodies: string[],
  timeoutMs = 60_000,
): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, JSON.stringify({ address, url, headers, bodies, timeoutMs })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      err += String(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out) as FloodResult);
      else reject(new Error(`flood worker exited with ${code}: ${err}`));
    });
  });
}
