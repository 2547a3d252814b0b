// Load generation: autocannon for single-request scenarios, a bounded virtual-user loop for multi-step flows.
import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Responses with a status other than the scenario's expected one. */
  unexpected: number;
}

export interface HttpScenario {
  method?: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expectStatus?: number;
  /** Text every answer must contain (e.g. `"active":true`), so a fast wrong answer counts as unexpected. */
  expectBody?: string;
  /** Builds each request, e.g. with a unique body. */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
  /** For a finite pool of one-time requests (codes minted before): how many to send, instead of a duration. */
  requests?: () => number;
}

export async function runHttpLoad(
  baseUrl: string,
  scenario: HttpScenario,
  connections: number,
  durationSeconds: number,
): Promise<LoadResult> {
  const expected = scenario.expectStatus ?? 200;
  let unexpected = 0;
  const result = await autocannon({
    url: baseUrl,
    connections,
    ...(scenario.requests ? { amount: scenario.requests() } : { duration: durationSeconds }),
    timeout: 10,
    requests: [
      {
        method: scenario.method ?? 'GET',
        path: scenario.path,
        headers: scenario.headers,
        body: scenario.body,
        // autocannon calls a setupRequest key even when it is undefined: only pass it when there is one
        ...(scenario.setupRequest ? { setupRequest: scenario.setupRequest as never } : {}),
        onResponse: ((status: number, body: string) => {
          const wrong =
            status !== expected || (scenario.expectBody !== undefined && !body.includes(scenario.expectBody));
          if (wrong && unexpected++ === 0)
            process.stderr.write(`first unexpected response: ${status} ${body.slice(0, 300)}\n`);
        }) as never,
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    unexpected,
  };
}

/** Runs `flow` in `users` concurrent loops for the duration, or until `operations` have started (the CPU budget's
 *  fixed counts); each loop iteration is one measured operation. */
export async function runFlowLoad(
  flow: () => Promise<void>,
  users: number,
  durationSeconds: number,
  operations = Number.POSITIVE_INFINITY,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let begun = 0;
  const deadline = Date.now() + durationSeconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: users }, async () => {
      while (Date.now() < deadline && begun++ < operations) {
        const t0 = performance.now();
        try {
          await flow();
          latencies.push(performance.now() - t0);
        } catch (error) {
          if (errors++ === 0) process.stderr.write(`first error: ${(error as Error).message}\n`);
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    rps: latencies.length / ((Date.now() - started) / 1000),
    p50: Math.round(pick(0.5) * 100) / 100,
    p99: Math.round(pick(0.99) * 100) / 100,
    errors,
    unexpected: 0,
  };
}
