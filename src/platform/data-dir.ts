// The data directory holds the embedded database (password hashes, sessions, signing keys sealed with the master key),
// the master key and the generated admin password: no other local user may read it. What PGlite's PostgreSQL creates
// goes through Node with the mode it asks for (0600), filtered by the process umask, which is set to 077 here before
// anything is created. Past the umask, PGlite unpacks a new database with its archive's modes (0666) and re-sets the
// modes of a few files it rewrites at start (0644), and a directory made by an older version or by hand can be
// anything: so the tree is tightened at every start, and again after the database opens and closes (db.ts).
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';

const OWNER_ONLY = 0o077;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface Tightened {
  dir: string;
  changed: number;
  /** Entries this process may not chmod (another user's, e.g. a mount point): reported, not fatal. */
  refused: string[];
}

/**
 * Makes `dir` (created if missing) and everything under it readable by its owner only, and sets the process umask so
 * that whatever this process creates from now on is too. Logs what had to be tightened, with the path.
 */
export function secureDataDir(dir: string, log?: Pick<Logger, 'warn'>): Tightened {
  process.umask(OWNER_ONLY);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const result = tightenDataDir(dir);
  if (result.changed)
    log?.warn(
      { dataDir: dir, entries: result.changed },
      'tightened the data directory to owner-only access (directories 0700, files 0600)',
    );
  if (result.refused.length)
    log?.warn(
      { dataDir: dir, notOwned: result.refused.slice(0, 10) },
      'entries of the data directory that this user cannot make owner-only',
    );
  return result;
}

/**
 * Sets every directory under `dir` (and `dir`) to 0700 and every file readable by others to 0600. Symbolic links are
 * left alone (chmod would follow them out of the directory). An embedded database is about a thousand files: a stat
 * each on every start.
 */
export function tightenDataDir(dir: string): Tightened {
  const result: Tightened = { dir, changed: 0, refused: [] };
  const chmod = (path: string, mode: number) => {
    try {
      chmodSync(path, mode);
      result.changed++;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
      result.refused.push(path);
    }
  };
  const walk = (path: string) => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return; // gone meanwhile (a removed temporary file), or a link
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) walk(join(path, entry));
      if ((stat.mode & 0o777) !== DIR_MODE) chmod(path, DIR_MODE);
    } else if ((stat.mode & OWNER_ONLY) !== 0) {
      chmod(path, FILE_MODE);
    }
  };
  walk(dir);
  return result;
}
