// `gatehouse project list`: the org's projects with their IDs, which `app create --project-id`, `app list` and the
// role and grant commands take; through the same service function as ListProjects.
import { listProjects } from '../projects/service.ts';
import { parseOptions, print, withInstance, type Command } from './command.ts';
import { PAGE_HELP, PAGE_OPTIONS, pageOf } from './lifecycle.ts';
import { orgOf } from './provision.ts';

export const projectList: Command = {
  summary: "list an org's projects (ListProjects)",
  help: `Usage: gatehouse project list [options]

Lists the org's projects by name, with the total count: {"totalResult","projects":[{"projectId","name","state"}]}
(with --output table, the projects).

${PAGE_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, PAGE_OPTIONS);
    const page = pageOf(o);
    return withInstance(ctx, async ({ db, instance }) => {
      const result = await listProjects(db, await orgOf(db, instance, o.org), [], page);
      const projects = result.rows.map((p) => ({ projectId: p.id, name: p.name, state: p.state }));
      print(ctx, o.output === 'table' ? projects : { totalResult: result.totalResult.toString(), projects }, o.output);
      return 0;
    });
  },
};
