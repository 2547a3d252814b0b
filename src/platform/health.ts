// Liveness and readiness, also at ZITADEL's /debug paths for its tooling.
import type { FastifyInstance } from 'fastify';
import type { Db } from './db.ts';
import { SchemaCheck } from './schema-check.ts';

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
  const schema = new SchemaCheck(db, expectedSchemaVersion, app.log);
  schema.start();
  app.addHook('onClose', async () => schema.stop());
  const ready = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    if (lifecycle.draining) return reply.code(503).send({ status: 'unavailable', reason: 'shutting down' });
    try {
      const { mismatch } = await withTimeout(schema.check(), READY_TIMEOUT_MS);
      if (mismatch) return reply.code(503).send({ status: 'unavailable', reason: mismatch });
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
