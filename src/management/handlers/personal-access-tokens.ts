// Personal access tokens of machine users on zitadel.management.v1.ManagementService, the siblings of machine keys
// (machine-users.ts): add one (the token is in this answer only), list, get and remove them. Within the org in
// context, ORG_OWNER of it or IAM_OWNER. Lists and reads never carry a token: it is not stored.
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addPersonalAccessToken,
  getPersonalAccessToken,
  listPersonalAccessTokens,
  removePersonalAccessToken,
  type PersonalAccessTokenRow,
} from '../../users/personal-access-tokens.ts';
import { PERSONAL_ACCESS_TOKEN_SCOPES } from '../../oidc/scopes.ts';
import { detailsMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf } from '../list-query.ts';
import { operation, orgOwner, type Operation } from '../operation.ts';
import { userRef } from './users.ts';

const M = ManagementService.method;

/** zitadel.user.v1.PersonalAccessToken: id, details, expiration and scopes (ZITADEL's PersonalAccessTokenToPb). */
const tokenMessage = (row: PersonalAccessTokenRow, owner: string) => ({
  id: row.id,
  details: storedDetails({ sequence: row.sequence, created_at: row.created_at, changed_at: row.created_at }, owner),
  expirationDate: timestampFromDate(row.expires_at),
  scopes: row.scope.split(' '),
});

export function personalAccessTokenOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: M.addPersonalAccessToken,
      permission: orgOwner,
      async handle(caller, req) {
        const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : undefined;
        const { tokenId, token, details } = await addPersonalAccessToken(
          db,
          userRef(caller, req.userId),
          { expiresAt, scopes: PERSONAL_ACCESS_TOKEN_SCOPES },
          caller.principal.userId,
        );
        return { tokenId, token, details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.listPersonalAccessTokens,
      permission: orgOwner,
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListPersonalAccessTokensRequest');
        const result = await listPersonalAccessTokens(db, userRef(caller, req.userId), page);
        return { details: listDetailsMessage(result), result: result.rows.map((r) => tokenMessage(r, caller.orgId)) };
      },
    }),
    operation({
      method: M.getPersonalAccessTokenByIDs,
      permission: orgOwner,
      async handle(caller, req) {
        const row = await getPersonalAccessToken(db, userRef(caller, req.userId), req.tokenId);
        return { token: tokenMessage(row, caller.orgId) };
      },
    }),
    operation({
      method: M.removePersonalAccessToken,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return {
          details: detailsMessage(await removePersonalAccessToken(db, ref, req.tokenId, caller.principal.userId)),
        };
      },
    }),
  ];
}
