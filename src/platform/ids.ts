// Resource IDs in ZITADEL's style: decimal strings that sort by creation time (milliseconds, then 22 random bits),
// so SDKs and scripts that treat IDs as opaque numeric strings keep working.
import { randomInt } from 'node:crypto';

export function newId(): string {
  return ((BigInt(Date.now()) << 22n) | BigInt(randomInt(0, 1 << 22))).toString();
}
