// A tiny logic-less template renderer (a Mustache subset) for views/: `{{name}}` inserts escaped text,
// `{{#name}}…{{/name}}` repeats for each item of a list or shows the block when the value is truthy,
// `{{^name}}…{{/name}}` shows it when falsy, `{{> partial}}` includes another view. Every value is HTML-escaped;
// there is no way to insert raw HTML from data, so user input cannot become markup.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml } from '../platform/html.ts';

export { escapeHtml };

type Scope = readonly unknown[];

function lookup(scope: Scope, path: string): unknown {
  if (path === '.') return scope[0];
  const [head, ...rest] = path.split('.');
  for (const ctx of scope) {
    if (ctx && typeof ctx === 'object' && head! in ctx) {
      return rest.reduce<unknown>(
        (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
        (ctx as Record<string, unknown>)[head!],
      );
    }
  }
  return undefined;
}

// Sections and variables in one left-to-right pass: inserted values are never scanned again, so a value that
// looks like a tag stays text.
const TAG = /\{\{([#^])\s*([\w.]+)\s*\}\}([\s\S]*?)\{\{\/\s*\2\s*\}\}|\{\{\s*([\w.]+)\s*\}\}/g;
const PARTIAL = /\{\{>\s*([\w-]+)\s*\}\}/g;

export class Views {
  readonly #templates = new Map<string, string>();

  /** Loads every `*.html` of the directory once; a view names its partials by file name without extension. */
  constructor(dir: string) {
    for (const file of readdirSync(dir)) {
      if (file.endsWith('.html')) this.#templates.set(file.slice(0, -5), readFileSync(join(dir, file), 'utf8'));
    }
  }

  render(name: string, data: object): string {
    return this.#expand(this.#source(name), [data]);
  }

  #source(name: string, depth = 0): string {
    const text = this.#templates.get(name);
    if (text === undefined) throw new Error(`unknown view ${name}`);
    if (depth > 5) throw new Error(`views nested too deeply at ${name}`);
    return text.replace(PARTIAL, (_m, partial: string) => this.#source(partial, depth + 1));
  }

  #expand(text: string, scope: Scope): string {
    return text.replace(
      TAG,
      (_m, kind: string | undefined, path: string, body: string, variable: string | undefined) => {
        if (variable) return escapeHtml(lookup(scope, variable));
        const value = lookup(scope, path);
        const empty = !value || (Array.isArray(value) && value.length === 0);
        if (kind === '^') return empty ? this.#expand(body, scope) : '';
        if (empty) return '';
        if (Array.isArray(value)) return value.map((item) => this.#expand(body, [item, ...scope])).join('');
        return this.#expand(body, typeof value === 'object' ? [value, ...scope] : scope);
      },
    );
  }
}
