// The documentation holds together: every relative link of README.md, CHANGELOG.md, SECURITY.md and docs/*.md points
// to a file that exists and, when it names a heading (#anchor), to a heading that file has. Links are read as GitHub
// renders them: none inside code, anchors made from the heading's text. And no page names a tracker's issue number,
// which says nothing to a reader outside the team.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Code blanked out, its line breaks kept, so that line numbers stay the page's. */
const blank = (code: string) => code.replace(/[^\n]/g, '');

/** The page without its fenced code blocks, whose lines are neither headings nor links. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, blank);
}

/** The text GitHub reads links from: code blocks and inline code taken out. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`]*`/g, blank);
}

/** The anchors of a page's headings, as GitHub makes them: lower case, punctuation dropped, spaces to hyphens, a
 *  repeated heading numbered from -1. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const [, text] of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = text!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    slugs.add(count ? `${slug}-${count}` : slug);
  }
  return slugs;
}

/** Every relative link and image of a page, with the line it starts on. */
function relativeLinks(markdown: string): { target: string; line: number }[] {
  const text = prose(markdown);
  return [...text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
    .filter(([, target]) => !/^[a-z][a-z0-9+.-]*:/i.test(target!))
    .map((m) => ({ target: m[1]!, line: text.slice(0, m.index).split('\n').length }));
}

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link points to an existing file and heading', (page) => {
    const markdown = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(markdown)) {
      const [path = '', anchor] = target.split('#');
      const file = path ? resolve(dirname(join(ROOT, page)), decodeURI(path)) : join(ROOT, page);
      if (!existsSync(file)) broken.push(`${page}:${line} ${target}: no file ${relative(ROOT, file)}`);
      else if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor))
        broken.push(`${page}:${line} ${target}: no heading #${anchor} in ${relative(ROOT, file)}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s: names no issue numbers', (page) => {
    const markdown = readFileSync(join(ROOT, page), 'utf8');
    expect(markdown.match(/\bissues? #?\d+/gi) ?? []).toEqual([]);
  });

  it('reads anchors and links as GitHub does', () => {
    const page = "# Upgrading\n## 7. Going back\n## The console's pages\n## A `code` heading\n## Lists\n## Lists\n";
    expect([...anchors(page)]).toEqual([
      'upgrading',
      '7-going-back',
      'the-consoles-pages',
      'a-code-heading',
      'lists',
      'lists-1',
    ]);
    const links = relativeLinks(
      'See [a](a.md#x), [b](https://b.example), `[c](c.md)`,\n![d](d.png "D").\n```\n[e](e.md)\n```\n',
    );
    expect(links).toEqual([
      { target: 'a.md#x', line: 1 },
      { target: 'd.png', line: 2 },
    ]);
  });
});

describe('the figures the README repeats', () => {
  it("names as many management methods as docs/api.md's generated table holds", () => {
    const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
    const table = /^(\d+) methods, each on REST, gRPC and gRPC-Web\.$/m.exec(read('docs/api.md'))?.[1];
    const readme = /the (\d+) methods served/.exec(read('README.md'))?.[1];
    expect(table).toBeDefined();
    expect(readme).toBe(table);
  });
});
