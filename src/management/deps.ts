// What the management API takes from the composition root (app.ts): its own small type, so that no handler imports
// the root that imports it (no import circle).
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { InstanceRow } from '../instance/queries.ts';
import type { HashAdmission } from '../users/passwords.ts';

export interface ManagementDeps {
  db: Db;
  secrets: SecretBox;
  instance: InstanceRow;
  /** The bounded password-hashing queue every network request hashes through. */
  hashing: HashAdmission;
  config: Config;
  /** The outbox for verification and reset mails. */
  mailer: Mailer;
}
