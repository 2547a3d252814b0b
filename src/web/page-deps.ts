// What every page family (the login, account and console pages) is built with.
import type { default as Provider } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { HashAdmission } from '../users/passwords.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Pages, PagesDeps } from './pages.ts';

/** What the pages need from the OIDC plugin: the current provider (it is rebuilt on key rotation). */
export interface InteractionProvider {
  provider(): Provider;
}

/** What the pages take from the composition root (app.ts). */
export interface PageAppDeps extends PagesDeps {
  config: Config;
  secrets: SecretBox;
  metrics: Metrics;
  /** The bounded password-hashing queue (SECURITY.md "Password guessing and hashing"). */
  hashing: HashAdmission;
  /** Verification and reset mails. */
  mailer: Mailer;
}

/** What a page's handler is given: the above, the provider, and the rendering of this instance's pages. */
export interface PageDeps extends PageAppDeps {
  oidc: InteractionProvider;
  pages: Pages;
}
