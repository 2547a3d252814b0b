// Resource IDs in ZITADEL's style: decimal strings that sort by creation time (milliseconds, then 22 bits), so SDKs
// and scripts that treat IDs as opaque numeric strings keep working. The low bits start random in each millisecond
// (processes and nodes that create IDs in the same millisecond do not collide) and count up within the process, so
// that two IDs one process makes in the same millisecond still sort in the order they were made (a list's default
// order is by ID).
import { randomInt } from 'node:crypto';

let last = 0n;

export function newId(): string {
  const candidate = (BigInt(Date.now()) << 22n) | BigInt(randomInt(0, 1 << 22));
  last = candidate > last ? candidate : last + 1n;
  return last.toString();
}
