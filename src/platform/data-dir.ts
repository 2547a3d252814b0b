// The data directory holds the embedded database (password hashes, sessions, signing keys sealed with the master
// key), the master key and the generated admin password: it is its owner's alone (issue 13 item 2). PostgreSQL's
// code creates its files 0600 but Node applies the umask, so the process umask is set before anything there is
// created; PGlite unpacks a new database with its archive's modes (0666, past the umask), and a directory made by an
// older version or by hand can be anything, so the tree is tightened at start as well.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const OWNER_ONLY = 0o077;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface Tightened { dir: string; changed: number }

/**
 * Makes `dir` (created if missing) and everything under it readable by its owner only, and sets the process umask so
 * that whatever this process creates from now on is too. Returns how many entries had to be tightened.
 */
export function secureDataDir(dir: string): Tightened {
  process.umask(OWNER_ONLY);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  return { dir, changed: tightenDataDir(dir) };
}

/**
 * Sets every directory under `path` (and `path`) to 0700 and every file readable by others to 0600; returns how many
 * entries changed. Symbolic links are left alone (chmod would follow them out of the directory). An embedded
 * database is about a thousand files: a stat each on every start.
 */
export function tightenDataDir(path: string): number {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  let changed = 0;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) changed += tightenDataDir(join(path, entry));
    if ((stat.mode & 0o777) !== DIR_MODE) { chmodSync(path, DIR_MODE); changed++; }
  } else if ((stat.mode & OWNER_ONLY) !== 0) {
    chmodSync(path, FILE_MODE);
    changed++;
  }
  return changed;
}
