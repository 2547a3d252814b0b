// Reading a posted form, and the two ways a form post is refused before any page logic runs: it is not ours
// (cross-origin or without its CSRF token), or a field holds a character no field may hold.
import type { FastifyRequest } from 'fastify';

export class ForbiddenPost extends Error {
  override name = 'ForbiddenPost';
}

/** A form field, query or path parameter holding U+0000 (platform/text.ts): refused with a page naming it. */
export class InvalidCharacter extends Error {
  override name = 'InvalidCharacter';
  readonly field: string;
  constructor(field: string) {
    super(`${field} must not contain NUL characters`);
    this.field = field;
  }
}

/** A text field of the posted form; repeated or non-text fields count as absent. */
export function formField(request: FastifyRequest, name: string): string | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
