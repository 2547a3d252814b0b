// Input rules for humans who register themselves on the login pages (prompt=create): names at most 200
// characters, as in ZITADEL's API; passwords at least 8 characters, long passphrases allowed, no composition
// rules (NIST SP 800-63B §5.1.1.2).
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
