// Liveness and readiness (issue "Foundation" §10), also at ZITADEL's /debug paths for its tooling.
import type { FastifyInstance } from 'fastify';
import type { Db } from './db.ts';
import { schemaVersion } from './migrate.ts';

const READY_TIMEOUT_MS = 2000;

/** Shared with the shutdown sequence: while draining, the process serves requests but reports itself not ready. */
export interface Lifecycle {
  draining: boolean;
}

export function registerHealthRoutes(
  app: FastifyInstance,
  db: Db,
  expectedSchemaVersion: number,
  lifecycle: Lifecycle,
): void {
  const alive = async () => ({ status: 'ok' });
  const ready = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    if (lifecycle.draining) return reply.code(503).send({ status: 'unavailable', reason: 'shutting down' });
    try {
      const version = await withTimeout(schemaVersion(db), READY_TIMEOUT_MS);
      if (version < expectedSchemaVersion) {
        return reply.code(503).send({
          status: 'unavailable',
          reason: `database schema is at ${version}, expected ${expectedSchemaVersion}`,
        });
      }
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database unreachable' });
    }
  };
  for (const path of ['/healthz', '/debug/healthz']) app.get(path, { logLevel: 'warn' }, alive);
  for (const path of ['/readyz', '/debug/ready']) app.get(path, { logLevel: 'warn' }, ready);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
