// The attacker of a flood test as a process of its own (test/helpers/flood.ts), so its requests do not share the
// event loop of the server under test, which runs in the test's process. Reads one JSON job from argv, sends all
// requests at once from the given local address, prints the answers' statuses and one sample answer per status.
import { requestFrom, type AddressResponse } from './from-address.ts';

interface Job {
  address: string;
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  timeoutMs: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
const answers = await Promise.all(
  job.bodies.map((body) =>
    requestFrom(job.address, job.url, { method: 'POST', headers: job.headers, body }, job.timeoutMs).catch(
      (error: Error): AddressResponse => ({ status: 0, headers: {}, body: error.message }),
    ),
  ),
);
const samples: Record<number, AddressResponse> = {};
const statuses: Record<number, number> = {};
for (const a of answers) {
  statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  samples[a.status] ??= a;
}
process.stdout.write(JSON.stringify({ statuses, samples }));
