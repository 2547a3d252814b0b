// Bounded concurrent load for reliability tests: N workers repeat an operation until stopped or a deadline.
export interface LoadRecord {
  status: number | 'network-error';
  ms: number;
  at: number;
}

export interface Load {
  records: LoadRecord[];
  /** Stops the workers and waits for the requests in flight. */
  stop(): Promise<void>;
}

export function startLoad(
  workers: number,
  operation: () => Promise<number>,
  options: { maxSeconds: number; pauseMs?: number },
): Load {
  const records: LoadRecord[] = [];
  let stopped = false;
  const deadline = Date.now() + options.maxSeconds * 1000;
  const running = Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stopped && Date.now() < deadline) {
        const t0 = Date.now();
        let status: LoadRecord['status'];
        try {
          status = await operation();
        } catch {
          status = 'network-error';
        }
        records.push({ status, ms: Date.now() - t0, at: t0 });
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
    }),
  );
  return {
    records,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until check() is true (bounded). */
export async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what}: not reached within ${timeoutMs} ms`);
}
