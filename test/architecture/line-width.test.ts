// Lines stay within the formatter's 120 columns. Biome wraps code but not long strings, template
// literals or comments, and has no line-length rule, so this check covers what the formatter leaves alone. A line
// that opens a test or a suite is exempt when only its title makes it long: a title is one sentence that the test
// reporter prints whole, and cutting it would only move the test body's indentation.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const MAX_COLUMNS = 120;
const ROOT = new URL('../../', import.meta.url);

function tsFiles(dir: string): string[] {
  return readdirSync(new URL(dir, ROOT), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${dir}/${file}`)
    .sort();
}

/** `it('title', async () => {` and the like: long only through the title's text. */
const TEST_TITLE = /^\s*(it|test|describe)(\.\w+)?\((['"`]).*\3, (async )?\(\) => \{$/;
const isTestTitle = (line: string) =>
  TEST_TITLE.test(line) && [...line.replace(/(['"`]).*\1/, "''")].length <= MAX_COLUMNS;

describe('line width', () => {
  it('has no line over 120 characters in src/, test/ or bench/ *.ts files', () => {
    const files = ['src', 'test', 'bench'].flatMap(tsFiles);
    expect(files.length).toBeGreaterThan(100);
    const offending: string[] = [];
    for (const file of files) {
      const lines = readFileSync(new URL(file, ROOT), 'utf8').split(/\r?\n/);
      for (const [index, line] of lines.entries()) {
        // Characters as an editor counts them: code points, not UTF-16 units.
        const width = [...line].length;
        if (width > MAX_COLUMNS && !isTestTitle(line)) offending.push(`${file}:${index + 1} (${width})`);
      }
    }
    // The list in the message: a failure names every file:line to wrap.
    expect(offending.length, `lines over ${MAX_COLUMNS} characters:\n${offending.join('\n')}\n`).toBe(0);
  });
});
