// The request scope (src/platform/request-scope.ts): values handed ahead are seen by the whole request and taken once,
// a unit of work holds rows and writes back until it ends (or is told to write), a unit inside another holds its own,
// and nothing leaks between requests or outside one.
import { describe, expect, it } from 'vitest';
import {
  deferredRow,
  deferRow,
  deferWrite,
  getScoped,
  scopeKey,
  scoped,
  setScoped,
  takeScoped,
  unitOfWork,
  withScoped,
  writeDeferred,
  type Held,
} from '../../src/platform/request-scope.ts';

const ROW = scopeKey<{ n: number }>('test:row');
const NOTE = scopeKey<string>('test:note');

/** A unit's writer that records what it was handed. */
function recorder() {
  const sent: { rows: [string, { n: number } | null][]; writes: string[] }[] = [];
  const send = async (held: Held) => {
    sent.push({ rows: [...held.rows(ROW)], writes: held.writes.map((w) => w((v) => `$${String(v)}`)) });
  };
  return { sent, send };
}

describe('request scope', () => {
  it('hands a value to the rest of the request, once; a value read and absent is not a value missing', async () => {
    await withScoped([scoped(ROW, { n: 1 }, 'a'), scoped(ROW, undefined, 'gone')], async () => {
      await Promise.resolve();
      expect(getScoped(ROW, 'a')).toEqual({ value: { n: 1 } });
      expect(takeScoped(ROW, 'a')).toEqual({ value: { n: 1 } });
      expect(takeScoped(ROW, 'a')).toBeUndefined(); // a second read goes to the database
      expect(takeScoped(ROW, 'gone')).toEqual({ value: undefined });
      expect(takeScoped(ROW, 'other')).toBeUndefined();
      expect(takeScoped(NOTE, 'a')).toBeUndefined(); // another key's values are apart
    });
    expect(getScoped(ROW, 'gone')).toBeUndefined(); // outside the request: nothing
  });

  it('shares one scope across the steps of a request, and none between requests', async () => {
    const request = (id: string) =>
      unitOfWork(recorder().send, () =>
        withScoped([scoped(NOTE, id)], async () => {
          expect(setScoped(ROW, { n: id.length })).toBe(true);
          await new Promise((resolve) => setImmediate(resolve));
          return [getScoped(NOTE)?.value, getScoped(ROW)?.value];
        }),
      );
    expect(await Promise.all([request('x'), request('yy')])).toEqual([
      ['x', { n: 1 }],
      ['yy', { n: 2 }],
    ]);
    expect(setScoped(NOTE, 'lost')).toBe(false);
  });

  it('holds a unit’s rows and writes until it ends, sends them once, and reads its own rows before', async () => {
    const { sent, send } = recorder();
    await unitOfWork(send, async () => {
      expect(deferRow(ROW, 'a', { n: 1 })).toBe(true);
      expect(deferRow(ROW, 'a', { n: 2 })).toBe(true); // the last write of a row wins
      expect(deferRow(ROW, 'b', null)).toBe(true);
      expect(deferWrite((param) => `w AS (SELECT ${param(7)})`)).toBe(true);
      expect(deferredRow(ROW, 'a')).toEqual({ row: { n: 2 } });
      expect(deferredRow(ROW, 'b')).toEqual({ row: null });
      expect(deferredRow(ROW, 'c')).toBeUndefined();
      expect(sent).toEqual([]);
    });
    expect(sent).toEqual([
      {
        rows: [
          ['a', { n: 2 }],
          ['b', null],
        ],
        writes: ['w AS (SELECT $7)'],
      },
    ]);
    // outside a unit nothing is held: the caller writes at once
    expect(deferRow(ROW, 'a', { n: 3 })).toBe(false);
    expect(deferWrite(() => '')).toBe(false);
  });

  it('writes what a unit holds when told to, sends nothing for an empty unit, and sends on failure', async () => {
    const { sent, send } = recorder();
    await unitOfWork(send, async () => {
      deferRow(ROW, 'a', { n: 1 });
      await writeDeferred();
      expect(sent).toHaveLength(1);
      expect(deferredRow(ROW, 'a')).toBeUndefined(); // written: reads go to the database again
    });
    expect(sent).toHaveLength(1);
    await expect(
      unitOfWork(send, async () => {
        deferRow(ROW, 'b', { n: 2 });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(sent.map((s) => s.rows)).toEqual([[['a', { n: 1 }]], [['b', { n: 2 }]]]);
  });

  it('gives a unit inside another its own rows, and both the request’s values', async () => {
    const outer = recorder();
    const inner = recorder();
    await withScoped([scoped(NOTE, 'ahead')], () =>
      unitOfWork(outer.send, async () => {
        deferRow(ROW, 'outer', { n: 1 });
        await unitOfWork(inner.send, async () => {
          expect(deferredRow(ROW, 'outer')).toBeUndefined();
          deferRow(ROW, 'inner', { n: 2 });
          expect(getScoped(NOTE)).toEqual({ value: 'ahead' });
        });
        expect(inner.sent.map((s) => s.rows)).toEqual([[['inner', { n: 2 }]]]);
        expect(outer.sent).toEqual([]);
      }),
    );
    expect(outer.sent.map((s) => s.rows)).toEqual([[['outer', { n: 1 }]]]);
  });

  it('refuses a key declared twice', () => {
    expect(() => scopeKey('test:row')).toThrow(/declared twice: test:row/);
  });
});
