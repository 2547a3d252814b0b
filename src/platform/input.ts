// The one input parser for service inputs (management API and CLI alike): a zod schema, and on failure INVALID_ARGUMENT
// naming the first bad field in PGV's words, as ZITADEL does ("invalid AddProjectRequest.Name: value length must be
// between 1 and 200 runes, inclusive"). Request messages' own PGV rules are checked before, by management/validate.ts;
// these rules hold for every caller.
import { z } from 'zod';
import { invalidArgument } from './errors.ts';

const NAME_LENGTH = 'value length must be between 1 and 200 runes, inclusive';

/** A name (project, app, machine user): trimmed, 1 to 200 characters, as ZITADEL's `min_len: 1, max_len: 200`. */
export const name200 = z.string().trim().min(1, NAME_LENGTH).max(200, NAME_LENGTH);

/** Parses input or throws INVALID_ARGUMENT `invalid <request>.<Field>: <rule>` with the domain's error ID. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, request: string, id: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path
      .map((p) => (typeof p === 'string' ? p[0]!.toUpperCase() + p.slice(1) : `[${String(p)}]`))
      .join('.');
    throw invalidArgument(`invalid ${request}.${field}: ${issue.message}`, id);
  }
  return parsed.data;
}
