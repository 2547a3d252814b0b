// An exclusive pid lock file on a directory, so that two processes never open the same embedded database.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DirectoryLockedError extends Error {
  override name = 'DirectoryLockedError';
}

const lockFile = (dir: string) => join(dir, 'gatehouse.lock');

export function lockDirectory(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = lockFile(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = lockHolder(dir);
      if (owner !== undefined) {
        throw new DirectoryLockedError(
          `the data directory ${dir} is in use by process ${owner}; stop it first, or set DATABASE_URL to share a ` +
            `PostgreSQL database between instances`,
        );
      }
      rmSync(file, { force: true }); // left behind by a process that died: take it over
    }
  }
  throw new DirectoryLockedError(`could not lock the data directory ${dir}`);
}

/** The live process that holds the directory's lock; undefined when none does (no lock, or one left by a process
 *  that died). */
export function lockHolder(dir: string): number | undefined {
  let owner: number;
  try {
    owner = Number(readFileSync(lockFile(dir), 'utf8').trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return Number.isInteger(owner) && owner > 0 && isAlive(owner) ? owner : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
