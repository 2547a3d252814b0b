// Imports point one way (issue 14 §1): no import cycle anywhere in src/, and no feature imports the composition root.
// Type-only imports count too: a type cycle still couples the files' layouts, and `import type` of app.ts is exactly
// the back edge the issue names.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
// Static `import … from`, `export … from`, bare `import '…'` and dynamic `import('…')`, across line breaks.
const SPECIFIERS = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];
// Only the entry points may build the app.
const COMPOSITION_ROOT = 'app.ts';
const MAY_IMPORT_ROOT = new Set(['server.ts', 'main.ts']);
// Back edges that need no cycle to hurt (issue 14 §1): the domains sit below the OIDC layer, which sits below the
// login pages, the management API and the CLI; app.ts hands what a lower layer needs from a higher one down.
const DOMAINS = /^(platform|events|users|orgs|apps|projects|idps|members|instance|consents|lockout)\//;
const FORBIDDEN: [from: RegExp, to: RegExp][] = [
  [DOMAINS, /^(oidc|login|management|cli)\//],
  [/^oidc\//, /^(login|management|cli)\//],
  // oidc/ shows its two engines (issue 14 §2): oidc-provider (provider/) and the fast endpoints (fast/) build on
  // what oidc/ shares and never on each other; the edge (edge/) mounts both; only plugin.ts composes them all.
  [/^oidc\/provider\//, /^oidc\/(fast|edge)\/|^oidc\/plugin\.ts$/],
  [/^oidc\/fast\//, /^oidc\/(provider|edge)\/|^oidc\/plugin\.ts$/],
  [/^oidc\/edge\//, /^oidc\/plugin\.ts$/],
  [/^oidc\/(?!plugin\.ts)[^/]+$/, /^oidc\/(provider|fast|edge)\//],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** file (relative to src/) → the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1] as string;
        if (!specifier.startsWith('.')) continue;
        targets.add(relative(SRC, resolve(dirname(file), specifier)));
      }
    }
    graph.set(relative(SRC, file), [...targets].sort());
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file, or a file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import graph of src/', () => {
  const graph = importGraph();

  it('reads the whole tree and resolves every relative import to a file', () => {
    expect(graph.size).toBeGreaterThan(100);
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import of the composition root except from the entry points', () => {
    const importers = [...graph]
      .filter(([file, targets]) => targets.includes(COMPOSITION_ROOT) && !MAY_IMPORT_ROOT.has(file))
      .map(([file]) => file);
    expect(importers).toEqual([]);
  });

  it('has no import from a lower layer up to a higher one', () => {
    const backEdges = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => FORBIDDEN.some(([from, to]) => from.test(file) && to.test(target)))
        .map((target) => `${file} → ${target}`),
    );
    expect(backEdges).toEqual([]);
  });
});
