// U+0000 in client input: PostgreSQL can store it in neither text nor jsonb, so a value carrying it would fail deep
// inside a query or an event append as a 500. No identifier, name or protocol parameter has a use for it; each
// transport refuses it where it reads its input, naming the field.

export const hasNul = (value: string): boolean => value.includes('\0');

/** The first name in a parsed query, form or path (values are strings or lists of strings) whose name or value
 *  holds U+0000. */
export function fieldWithNul(entries: Iterable<[string, unknown]>): string | undefined {
  for (const [name, value] of entries) {
    if (hasNul(name)) return name.replaceAll('\0', '\\0');
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && hasNul(v))) return name;
  }
  return undefined;
}
