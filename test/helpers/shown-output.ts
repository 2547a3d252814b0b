// Compares a command's JSON output with the output a page shows for it, where the page elides what varies with `…`:
// `"…"` and `{…}` stand for any value, a trailing `,…}` for further keys. Every other key must be there with exactly
// the shown value, and an object shown without `,…` has no keys besides the shown ones.

const ANY = '\u0000any value';
const MORE = '\u0000more keys';

/** The shown output as a pattern; throws when it is not JSON once the ellipses are read. */
export function parseShown(shown: string): unknown {
  const json = shown
    .replaceAll('"…"', JSON.stringify(ANY))
    .replaceAll('{…}', JSON.stringify(ANY))
    .replaceAll(',…}', `,${JSON.stringify(MORE)}:true}`);
  return JSON.parse(json);
}

/** Where the output differs from the shown pattern, one line per difference (empty when it matches). */
export function differences(pattern: unknown, actual: unknown, path = '$'): string[] {
  if (pattern === ANY) return actual === undefined ? [`${path}: missing`] : [];
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== pattern.length) return [`${path}: expected ${pattern.length} items, got ${actual.length}`];
    return pattern.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`));
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const shown = Object.entries(pattern).filter(([key]) => key !== MORE);
    const found = shown.flatMap(([key, value]) =>
      key in actual
        ? differences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`)
        : [`${path}.${key}: missing`],
    );
    const extra = MORE in pattern ? [] : Object.keys(actual).filter((key) => !(key in pattern));
    return [...found, ...extra.map((key) => `${path}.${key}: not shown`)];
  }
  return Object.is(pattern, actual)
    ? []
    : [`${path}: expected ${JSON.stringify(pattern)}, got ${JSON.stringify(actual)}`];
}
