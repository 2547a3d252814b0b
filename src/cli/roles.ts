// `gatehouse role add|list|remove` and `gatehouse grant add|list|remove`: project roles and user grants through the
// same service functions as the management API, so the rules and events are the same.
import { addProjectRoles, listProjectRoles, removeProjectRole } from '../projects/roles.ts';
import { addUserGrant, removeUserGrants } from '../grants/service.ts';
import { listUserGrants, type GrantFilter } from '../grants/list.ts';
import {
  CLI_CREATOR,
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

// a command on a project of the org in context, printing JSON or a table
const PROJECT_OPTIONS = { project: { type: 'string' }, ...ORG_OPTION, ...OUTPUT_OPTION } as const;
const PROJECT_HELP = '  --project ID          the project                                           required';

export const roleAdd: Command = {
  summary: 'add a role to a project (AddProjectRole)',
  help: `Usage: gatehouse role add --project ID --key KEY [--display-name NAME] [--group GROUP] [options]

Adds the role KEY to the project. Prints {"projectId","key","sequence"}.

${PROJECT_HELP}
  --key KEY             the role key, as tokens carry it                      required
  --display-name NAME   a name for people (default: the key)
  --group GROUP         a group of roles
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, {
      ...PROJECT_OPTIONS,
      key: { type: 'string' },
      'display-name': { type: 'string' },
      group: { type: 'string', default: '' },
    });
    const projectId = required(o.project, 'project');
    const key = required(o.key, 'key');
    return withInstance(ctx, async ({ db, instance }) => {
      const ref = { orgId: await orgOf(db, instance, o.org), projectId };
      const role = { key, displayName: o['display-name'] ?? key, group: o.group };
      const details = await addProjectRoles(db, ref, { roles: [role] }, 'AddProjectRoleRequest', CLI_CREATOR);
      print(ctx, { projectId, key, sequence: details.sequence }, o.output);
      return 0;
    });
  },
};

export const roleList: Command = {
  summary: "list a project's roles (ListProjectRoles)",
  help: `Usage: gatehouse role list --project ID [options]

Prints the project's roles as [{"key","displayName","group"}].

${PROJECT_HELP}
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, PROJECT_OPTIONS);
    const projectId = required(o.project, 'project');
    return withInstance(ctx, async ({ db, instance }) => {
      const result = await listProjectRoles(db, { orgId: await orgOf(db, instance, o.org), projectId }, [], LIST_PAGE);
      print(
        ctx,
        result.rows.map((r) => ({ key: r.role_key, displayName: r.display_name, group: r.role_group })),
        o.output,
      );
      return 0;
    });
  },
};

export const roleRemove: Command = {
  summary: 'remove a role from a project and from every grant (RemoveProjectRole)',
  help: `Usage: gatehouse role remove --project ID --key KEY [options]

${PROJECT_HELP}
  --key KEY             the role key                                          required
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...PROJECT_OPTIONS, key: { type: 'string' } });
    const projectId = required(o.project, 'project');
    const key = required(o.key, 'key');
    return withInstance(ctx, async ({ db, instance }) => {
      const ref = { orgId: await orgOf(db, instance, o.org), projectId };
      const details = await removeProjectRole(db, ref, key, CLI_CREATOR);
      print(ctx, { projectId, key, sequence: details.sequence }, o.output);
      return 0;
    });
  },
};

export const grantAdd: Command = {
  summary: 'grant a user roles of a project (AddUserGrant)',
  help: `Usage: gatehouse grant add --user ID --project ID --role KEY [--role KEY ...] [options]

Grants the user the roles given (they must exist on the project). Prints {"grantId","userId","projectId","roleKeys"}.

  --user ID             the user                                              required
${PROJECT_HELP}
  --role KEY            a role key of the project (repeatable)
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, {
      ...PROJECT_OPTIONS,
      user: { type: 'string' },
      role: { type: 'string', multiple: true, default: [] },
    });
    const userId = required(o.user, 'user');
    const projectId = required(o.project, 'project');
    return withInstance(ctx, async ({ db, instance }) => {
      const orgId = await orgOf(db, instance, o.org);
      const { grantId } = await addUserGrant(db, { orgId, userId, projectId, roleKeys: o.role }, CLI_CREATOR);
      print(ctx, { grantId, userId, projectId, roleKeys: o.role }, o.output);
      return 0;
    });
  },
};

export const grantList: Command = {
  summary: "list the org's user grants, by user or project (ListUserGrants)",
  help: `Usage: gatehouse grant list [--user ID] [--project ID] [options]

Prints [{"grantId","userId","userName","projectId","roleKeys","state"}].

  --user ID             only this user's grants
  --project ID          only grants of this project
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...PROJECT_OPTIONS, user: { type: 'string' } });
    return withInstance(ctx, async ({ db, instance }) => {
      const filters: GrantFilter[] = [];
      if (o.user !== undefined) filters.push({ field: 'userId', id: o.user });
      if (o.project !== undefined) filters.push({ field: 'projectId', id: o.project });
      const result = await listUserGrants(db, await orgOf(db, instance, o.org), filters, LIST_PAGE);
      print(
        ctx,
        result.rows.map((g) => ({
          grantId: g.id,
          userId: g.user_id,
          userName: g.user_name,
          projectId: g.project_id,
          roleKeys: g.role_keys,
          state: g.state,
        })),
        o.output,
      );
      return 0;
    });
  },
};

export const grantRemove: Command = {
  summary: 'remove a user grant (RemoveUserGrant)',
  help: `Usage: gatehouse grant remove --grant ID [options]

  --grant ID            the grant                                             required
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...ORG_OPTION, ...OUTPUT_OPTION, grant: { type: 'string' } });
    const grantId = required(o.grant, 'grant');
    return withInstance(ctx, async ({ db, instance }) => {
      const details = await removeUserGrants(db, { orgId: await orgOf(db, instance, o.org) }, [grantId], CLI_CREATOR);
      print(ctx, { grantId, sequence: details?.sequence }, o.output);
      return 0;
    });
  },
};
