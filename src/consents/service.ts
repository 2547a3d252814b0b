// Consent to what an app may do with a user's permissions (SECURITY.md, Consent and logout). Apps of the instance's own
// organization are first-party and act silently, as in ZITADEL; an app of any other organization gets a consent-bound
// scope only after the user said yes on the consent page, once per user, app and scope. The consent is a database row,
// so it outlives the login session and every instance sees it.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { notFound } from '../platform/errors.ts';
import { findConsentTarget, insertConsent } from './queries.ts';

export interface ConsentRequest {
  appName: string;
  orgName: string;
  /** The app's project belongs to the instance's own (first) organization. */
  firstParty: boolean;
  consented: boolean;
}

export interface ConsentSubject {
  clientId: string;
  userId: string;
  scope: string;
}

/** The app asking and whether the user must still consent; undefined for a client that is no OIDC app. */
export async function describeConsentRequest(
  db: Queryable,
  defaultOrgId: string,
  subject: ConsentSubject,
): Promise<ConsentRequest | undefined> {
  const target = await findConsentTarget(db, subject.clientId, subject.userId, subject.scope);
  if (!target) return undefined;
  return {
    appName: target.app_name,
    orgName: target.org_name,
    firstParty: target.org_id === defaultOrgId,
    consented: target.consented,
  };
}

export const needsConsent = (request: ConsentRequest | undefined): boolean =>
  !request || (!request.firstParty && !request.consented);

/** Whether the app may get the scope for the user without asking. */
export async function scopeGrantedSilently(
  db: Queryable,
  defaultOrgId: string,
  subject: ConsentSubject,
): Promise<boolean> {
  return !needsConsent(await describeConsentRequest(db, defaultOrgId, subject));
}

/** Records the user's yes on the consent page, with its event; a repeated yes changes nothing. */
export async function grantAppConsent(db: Db, subject: ConsentSubject): Promise<void> {
  await db.tx(async (tx) => {
    const target = await findConsentTarget(tx, subject.clientId, subject.userId, subject.scope);
    if (!target) throw notFound('App not found', 'CONSENT-4kd8s');
    const userOrgId = await insertConsent(tx, { userId: subject.userId, appId: target.app_id, scope: subject.scope });
    if (!userOrgId) return;
    await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: subject.userId,
      eventType: EVENT.user.consentGranted,
      payload: { appId: target.app_id, clientId: subject.clientId, appOrgId: target.org_id, scope: subject.scope },
      resourceOwner: userOrgId,
      creator: subject.userId,
    });
  });
}
