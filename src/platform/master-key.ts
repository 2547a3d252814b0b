// The master key: from GATEHOUSE_MASTER_KEY, or (embedded database only) generated once and kept beside the data.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

export function resolveMasterKey(config: Config): string {
  if (config.masterKey) return config.masterKey;
  if (config.database.kind !== 'embedded')
    throw new Error('GATEHOUSE_MASTER_KEY: is required when DATABASE_URL is set');
  const file = join(config.dataDir, 'master.key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 }); // owner-only, as db.ts keeps it (data-dir.ts)
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
