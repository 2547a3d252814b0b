// Input rules for humans who register themselves on the login pages (issue 4 §2 prompt=create, interface.md
// Limits: names at most 200 characters; security.md §15: password at least 8 characters, long passphrases
// allowed, no composition rules).
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

export const NAME_MAX_LENGTH = 200;

const name = z.string().trim().min(1).max(NAME_MAX_LENGTH);

export const registrationSchema = z.object({
  firstName: name,
  lastName: name,
  email: z.string().trim().min(1).max(NAME_MAX_LENGTH).pipe(z.email()),
  // Spaces would make the login name ambiguous to type; ZITADEL refuses them too.
  userName: name.regex(/^\S+$/, 'must not contain whitespace'),
  password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
});

export type Registration = z.infer<typeof registrationSchema>;
