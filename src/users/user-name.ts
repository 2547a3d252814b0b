// Which user names can be given. A user name is read in two other roles, and must never be
// mistaken for something else in either:
// - as an OAuth client ID: a machine user's user name is its client_id for client_credentials (as in ZITADEL), so a
//   name of the form of an app's client ID (`<appId>@<projectId>`, apps/service.ts) is refused everywhere;
// - as a login name: login names are `user name@org domain` (as in ZITADEL), so a user name whose part after its
//   last `@` is an organization's domain, the instance domain or a name under it (where generated org domains live,
//   orgs/domain-name.ts) is refused, and the login lookup resolves such names through the org domain first
//   (queries.ts findUserByLoginName), which also covers names older versions accepted. E-mail-like user names with
//   other domains (`alice@example.com`) stay valid.
import type { Queryable } from '../platform/db.ts';
import { invalidArgument } from '../platform/errors.ts';
import { isLoginDomain } from './queries.ts';

/** App client IDs: two decimal IDs (platform/ids.ts) joined by `@`. */
const CLIENT_ID_FORM = /^\d+@\d+$/;

/** The error ID of a refused user name, for transports that show their own text (the registration page). */
export const USER_NAME_REFUSED = 'USER-N4m3R';

/**
 * Throws INVALID_ARGUMENT naming `field` (e.g. "AddMachineUserRequest.UserName") when the name could be read as a
 * client ID or as another user's login name. `newOrgDomain`: the domain of an org created in the same request.
 */
export async function checkUserName(
  db: Queryable,
  userName: string,
  field: string,
  newOrgDomain?: string,
): Promise<void> {
  if (CLIENT_ID_FORM.test(userName)) {
    throw invalidArgument(
      `invalid ${field}: must not have the form of an app's client ID (<app id>@<project id>)`,
      USER_NAME_REFUSED,
    );
  }
  const at = userName.lastIndexOf('@');
  if (at < 0) return;
  const domain = userName.slice(at + 1);
  if (domain.toLowerCase() === newOrgDomain?.toLowerCase() || (await isLoginDomain(db, domain))) {
    throw invalidArgument(
      `invalid ${field}: must not end with @ and an organization's or the instance's domain (that is a login name)`,
      USER_NAME_REFUSED,
    );
  }
}
