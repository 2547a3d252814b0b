// Whether the port to serve on is free, asked before a start spends seconds opening the database: a port in use is
// then one line at once. The listen at the end of the start still decides (another process may take the port
// meanwhile); addressInUse names the setting either way.
import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Config } from '../config.ts';

/** Whether another process listens on the port at one of the addresses the host stands for. */
export async function portTaken(host: string, port: number): Promise<boolean> {
  if (port === 0) return false;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  for (const { address } of addresses) {
    const probe = createServer();
    try {
      probe.listen({ host: address, port, exclusive: true });
      await once(probe, 'listening');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return true;
      // any other refusal (an address family this machine lacks) is the real listen's to report
    } finally {
      probe.close();
    }
  }
  return false;
}

/** The one line for a start that failed on an address in use, naming the setting; undefined for other errors. */
export function addressInUse(error: unknown, config: Config): string | undefined {
  const { code, port } = error as { code?: string; port?: number };
  if (code !== 'EADDRINUSE') return undefined;
  if (config.metricsAddress && port === config.metricsAddress.port && port !== config.port)
    return `GATEHOUSE_METRICS_ADDRESS ${config.metricsAddress.host}:${port} is in use by another process`;
  return inUse(config);
}

export const inUse = (config: Config) =>
  `PORT ${config.port} is in use on ${config.host} by another process: stop it, or set PORT to a free port`;
