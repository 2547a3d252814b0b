// The event catalog (src/events/types.ts) is the one place an event is named: every name in it is ZITADEL-shaped
// (`<aggregate>.…`) and unique, something in src/ writes it, and no writer spells a name of its own. The type of
// appendEvent keeps names out of the log that the catalog does not have (the @ts-expect-error lines below fail
// `tsc` the day such a write compiles).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvent } from '../../src/events/log.ts';
import { EVENT, type AggregateType } from '../../src/events/types.ts';
import type { Queryable } from '../../src/platform/db.ts';

const SRC = resolve(import.meta.dirname, '../../src');
const CATALOG = 'events/types.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of every file of src/ but the catalog. */
const writers = sourceFiles(SRC)
  .filter((file) => relative(SRC, file) !== CATALOG)
  .map((file) => ({ file: relative(SRC, file), text: readFileSync(file, 'utf8') }));

const entries = (Object.keys(EVENT) as AggregateType[]).flatMap((aggregate) =>
  Object.entries(EVENT[aggregate]).map(([key, type]) => ({ aggregate, key, type: type as string })),
);

describe('event catalog', () => {
  it('names each event once, under the aggregate ZITADEL writes it on', () => {
    expect(new Set(entries.map((e) => e.type)).size).toBe(entries.length);
    // a user's grants are an aggregate of their own, named after the user
    const prefix = (aggregate: AggregateType) => (aggregate === 'usergrant' ? 'user.grant.' : `${aggregate}.`);
    expect(entries.filter((e) => !e.type.startsWith(prefix(e.aggregate)))).toEqual([]);
  });

  it('has no event that nothing writes', () => {
    // by its group (EVENT.user.locked) or by a group chosen at run time (EVENT[resource.type].memberAdded)
    const written = (e: (typeof entries)[number]) =>
      writers.some(
        ({ text }) =>
          text.includes(`EVENT.${e.aggregate}.${e.key}`) || new RegExp(`EVENT\\[[^\\]]+\\]\\.${e.key}\\b`).test(text),
      );
    expect(entries.filter((e) => !written(e)).map((e) => e.type)).toEqual([]);
  });

  it('is the one place an event is named', () => {
    // a quoted name, or one put together in a template (`${resource.type}.member.added`)
    const spelt = /['"`](?:instance|org|project|user|\$\{[^}]*\})\.(?:[^'"`\s$]|\$\{[^}]*\})*(?:ed|set)['"`]/g;
    const found = writers.flatMap(({ file, text }) => [...text.matchAll(spelt)].map((m) => `${file}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it('does not compile a name outside the catalog, nor one of another aggregate', () => {
    const at = { aggregateId: '1', resourceOwner: '1', creator: 'test' };
    const write = (tx: Queryable) => [
      appendEvent(tx, { ...at, aggregateType: 'user', eventType: EVENT.user.locked }),
      // @ts-expect-error: not an event of the catalog
      appendEvent(tx, { ...at, aggregateType: 'user', eventType: 'user.human.invented' }),
      // @ts-expect-error: an org's event written on a user
      appendEvent(tx, { ...at, aggregateType: 'user', eventType: EVENT.org.added }),
      // @ts-expect-error: not an aggregate of the catalog
      appendEvent(tx, { ...at, aggregateType: 'session', eventType: EVENT.user.locked }),
    ];
    expect(write).toBeTypeOf('function'); // checked by tsc, never run
  });
});
