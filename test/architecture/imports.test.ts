// Imports point one way: no import cycle anywhere in src/, every folder in a layer that imports only the layers below
// it, and no feature imports the composition root. Type-only imports count too: a type cycle still couples the
// files' layouts, and `import type` of app.ts is a back edge like any other.
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
// The layers of src/, from the bottom up. A file may import files of its own folder and of the folders in lower
// layers only: the domains never reach up into the protocol, the pages or the API, and two folders of one layer stay
// independent of each other. Root files count as folders of their own: config.ts is the floor, the entry points
// that compose the app are the roof. Every folder must be listed, so a new one has to be placed before it can land.
const LAYERS: string[][] = [
  ['config.ts'],
  ['platform'],
  // templates and their texts; they render what they are given and know no flow
  ['views'],
  ['events'],
  ['mail', 'codes'],
  ['users'],
  ['emails', 'lockout', 'members'],
  ['passwords', 'orgs', 'projects', 'metadata', 'consents', 'idps', 'login-policy', 'factors'],
  ['instance', 'apps', 'grants', 'passkeys'],
  // the OpenID Connect layer builds on every domain it reads for tokens and claims
  ['oidc'],
  // how each second factor is checked and shown in a sign-in, above the factors and passkeys it combines
  ['second-factors'],
  // the web kernel every page builds on: texts for a request, security headers, CSRF, forms, page rendering
  ['web'],
  ['management'],
  // the three page families are siblings on the kernel; the console is a client of the management operations
  ['login', 'account', 'console'],
  ['cli'],
  ['app.ts'],
  ['server.ts'],
  ['main.ts'],
];
// Inside oidc/, its two engines (oidc-provider in provider/, the fast endpoints in fast/) build on what oidc/ shares
// and never on each other; the edge (edge/) mounts both; only plugin.ts composes them all.
const OIDC_RULES: [from: RegExp, to: RegExp][] = [
  [/^oidc\/provider\//, /^oidc\/(fast|edge)\/|^oidc\/plugin\.ts$/],
  [/^oidc\/fast\//, /^oidc\/(provider|edge)\/|^oidc\/plugin\.ts$/],
  [/^oidc\/edge\//, /^oidc\/plugin\.ts$/],
  [/^oidc\/(?!plugin\.ts)[^/]+$/, /^oidc\/(provider|fast|edge)\//],
];

// Templates are presentation: a domain hands data up and never renders, except the mail layer, whose job is to render
// the mails the domains queue.
const MAY_RENDER = new Set([
  'views',
  'mail',
  ...LAYERS.slice(LAYERS.findIndex((l) => l.includes('second-factors'))).flat(),
]);

/** The folder a file of src/ belongs to (its first path segment), or the root file's own name. */
function unitOf(file: string): string {
  return file.split('/')[0] as string;
}

function layerOf(unit: string): number {
  return LAYERS.findIndex((layer) => layer.includes(unit));
}

/** The file-level edges that break the layering: upward, sideways within a layer, or against the oidc/ rules. */
function backEdges(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const from = unitOf(file);
        const to = unitOf(target);
        if (from === to) return OIDC_RULES.some(([a, b]) => a.test(file) && b.test(target));
        if (to === 'views' && !MAY_RENDER.has(from)) return true;
        return layerOf(to) >= layerOf(from);
      })
      .map((target) => `${file} → ${target}`),
  );
}

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

  it('places every folder and root file of src/ in a layer', () => {
    const units = new Set([...graph.keys()].map(unitOf));
    expect([...units].filter((unit) => layerOf(unit) < 0).sort()).toEqual([]);
    const listed = LAYERS.flat();
    expect(listed.filter((unit) => !units.has(unit))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('has no import from a lower layer up to a higher one, nor between two folders of one layer', () => {
    expect(backEdges(graph)).toEqual([]);
  });

  it('finds an upward, a sideways and an oidc/ engine edge', () => {
    const edges = new Map([
      ['users/service.ts', ['login/routes.ts', 'platform/db.ts']],
      ['login/routes.ts', ['account/routes.ts', 'users/service.ts', 'web/page.ts']],
      ['oidc/fast/token.ts', ['oidc/provider/provider.ts', 'oidc/queries.ts']],
    ]);
    expect(backEdges(edges)).toEqual([
      'users/service.ts → login/routes.ts',
      'login/routes.ts → account/routes.ts',
      'oidc/fast/token.ts → oidc/provider/provider.ts',
    ]);
  });
});
