// Periodic background jobs, once per deployment: every worker process of every node ticks, and the one whose statement
// moves the job's next_run_at forward runs it. One statement in its own transaction, the database's clock: no session
// state (works through a transaction pooler, where session advisory locks do not), no leader to lose, nothing to hand
// over when a worker or node dies.
import type { Logger } from 'pino';
import type { Db } from './db.ts';

/** Claims this period of the job: true for exactly one caller per period across every process on the database.
 *  The period is a little shorter than the interval at which processes tick, so that the next tick of whichever
 *  process claimed it is not early by the difference of two clocks. */
export async function claimJob(db: Db, name: string, intervalMs: number): Promise<boolean> {
  const periodMs = intervalMs - Math.min(1000, Math.floor(intervalMs / 10));
  const { rows } = await db.query(
    `INSERT INTO scheduled_jobs (name, next_run_at) VALUES ($1, now() + make_interval(secs => $2 / 1000.0))
     ON CONFLICT (name) DO UPDATE SET next_run_at = EXCLUDED.next_run_at WHERE scheduled_jobs.next_run_at <= now()
     RETURNING name`,
    [name, periodMs],
  );
  return rows.length === 1;
}

/** Runs job every intervalMs, once across the deployment; returns the timer's stop. */
export function scheduleJob(
  db: Db,
  log: Logger,
  job: { name: string; intervalMs: number; run: () => Promise<void> },
): () => void {
  let running = false; // a run longer than the interval is not joined by a second one in this process
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    claimJob(db, job.name, job.intervalMs)
      .then(async (claimed) => {
        if (!claimed) return;
        log.debug({ job: job.name }, 'background job runs');
        await job.run();
      })
      .catch((err) => log.warn({ err, job: job.name }, 'background job failed'))
      .finally(() => {
        running = false;
      });
  }, job.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
