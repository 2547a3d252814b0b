// A fresh clone of the repository as the working tree has it: every file git tracks, copied with its uncommitted
// changes (so a test of the docs checks what is being changed), and nothing git does not track (no node_modules,
// no data directory, no build output).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new temporary directory holding the tracked files of the checkout at root. */
export function copyCheckout(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-clone-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  // A tracked file deleted in the working tree is deleted in the copy too.
  for (const file of files.filter((f) => f && existsSync(join(root, f)))) cpSync(join(root, file), join(dir, file));
  return dir;
}
