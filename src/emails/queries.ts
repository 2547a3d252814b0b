// SQL of e-mail addresses and their verification.
import type { Queryable } from '../platform/db.ts';

export async function storeEmail(
  tx: Queryable,
  userId: string,
  email: { address: string; verified: boolean },
  sequence: string,
  at: Date,
): Promise<void> {
  await tx.query('UPDATE users SET email = $2, email_verified = $3, sequence = $4, changed_at = $5 WHERE id = $1', [
    userId,
    email.address,
    email.verified,
    sequence,
    at,
  ]);
}
