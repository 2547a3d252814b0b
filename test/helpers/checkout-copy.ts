// A fresh clone of the repository as the working tree has it: every file git tracks, copied with its uncommitted
// changes (so a test of the docs checks what is being changed), and nothing git does not track (no node_modules,
// no data directory, no build output).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'gatehouse-clone-';
// In memory when the machine has /dev/shm: an `npm install` in the clone writes some 550 MB that the test deletes
// minutes later, and on a shared disk writing and deleting them took longer than the rest of the test.
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
// No run takes this long: a clone this old was left by a run that was killed, and would hold its memory until reboot.
const ABANDONED_MS = 3600_000;

/** A new directory holding the tracked files of the checkout at root; the caller removes it. */
export function copyCheckout(root: string): string {
  for (const name of readdirSync(SCRATCH).filter((n) => n.startsWith(PREFIX))) {
    const old = join(SCRATCH, name);
    if (Date.now() - statSync(old).mtimeMs > ABANDONED_MS) rmSync(old, { recursive: true, force: true });
  }
  const dir = mkdtempSync(join(SCRATCH, PREFIX));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  // A tracked file deleted in the working tree is deleted in the copy too.
  for (const file of files.filter((f) => f && existsSync(join(root, f)))) cpSync(join(root, file), join(dir, file));
  return dir;
}
