// `gatehouse idp list` and `gatehouse idp link list`: the instance's JWT IdPs and a user's linked identities, through
// the same service functions as ListIDPs, ListLoginPolicyIDPs and ListHumanLinkedIDPs.
import { listIdps } from '../idps/lifecycle.ts';
import { listLoginPolicyIdps } from '../idps/login-policy.ts';
import { listUserLinks } from '../idps/links.ts';
import {
  LIST_PAGE,
  OUTPUT_HELP,
  OUTPUT_OPTION,
  parseOptions,
  print,
  required,
  withInstance,
  type Command,
} from './command.ts';
import { ORG_HELP, ORG_OPTION, orgOf } from './provision.ts';

export const idpList: Command = {
  summary: "list the instance's JWT identity providers (ListIDPs)",
  help: `Usage: gatehouse idp list [options]

Prints the IdPs in the order they were added, as [{"idpId","name","state","loginPolicy","autoRegister",
"jwtEndpoint","issuer","keysEndpoint","headerName"}]; loginPolicy says whether the login policy offers it
(AddIDPToLoginPolicy).

${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, OUTPUT_OPTION);
    return withInstance(ctx, async ({ db, instance }) => {
      const idps = await listIdps(db, instance.id, [], LIST_PAGE, false);
      const listed = new Set((await listLoginPolicyIdps(db, instance.id, LIST_PAGE)).rows.map((r) => r.idp_id));
      print(
        ctx,
        idps.rows.map((i) => ({
          idpId: i.id,
          name: i.name,
          state: i.state,
          loginPolicy: listed.has(i.id),
          autoRegister: i.auto_register,
          jwtEndpoint: i.jwt_endpoint,
          issuer: i.issuer,
          keysEndpoint: i.keys_endpoint,
          headerName: i.header_name,
        })),
        o.output,
      );
      return 0;
    });
  },
};

export const idpLinkList: Command = {
  summary: "list a user's linked IdP identities (ListHumanLinkedIDPs)",
  help: `Usage: gatehouse idp link list --user ID [options]

Prints the user's identities at JWT IdPs as [{"idpId","idpName","externalUserId","displayName"}]
(externalUserId is the JWT's sub).

  --user ID             the user                                              required
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...ORG_OPTION, ...OUTPUT_OPTION, user: { type: 'string' } });
    const userId = required(o.user, 'user');
    return withInstance(ctx, async ({ db, instance }) => {
      const links = await listUserLinks(db, { orgId: await orgOf(db, instance, o.org), userId }, LIST_PAGE);
      print(
        ctx,
        links.rows.map((l) => ({
          idpId: l.idp_id,
          idpName: l.idp_name,
          externalUserId: l.external_user_id,
          displayName: l.display_name,
        })),
        o.output,
      );
      return 0;
    });
  },
};
