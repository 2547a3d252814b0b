// The baseline side of `npm run bench`: a bare oidc-provider with in-memory storage (baseline.ts), started as a
// process of its own, and what its scenarios need.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The redirect URI of the baseline's web client. */
export const BASELINE_CALLBACK = 'http://127.0.0.1/cb';

export interface Baseline {
  url: string;
  clientCredentials: { clientId: string; clientSecret: string };
  introspector: { clientId: string; clientSecret: string };
  web: { clientId: string; clientSecret: string };
  userAccessToken: string;
  refreshTokens: string[];
  stop(): void;
}

export async function startBaseline(): Promise<Baseline> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./baseline.ts', import.meta.url)), '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    // oidc-provider prints its own notices on stdout too; the baseline's line is the JSON one.
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.startsWith('{')) resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { ...JSON.parse(line), stop: () => child.kill('SIGTERM') };
}
