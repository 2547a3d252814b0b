// Objects of the org in context (compat.md §1): a project, app or user of another org is answered like one that
// does not exist, so ids of other orgs cannot be probed.
import type { Db } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { getProject } from '../projects/service.ts';
import type { ProjectRow } from '../projects/queries.ts';
import { getApp } from '../apps/service.ts';
import type { AppRow } from '../apps/queries.ts';
import { getUserById } from '../users/service.ts';
import type { UserRow } from '../users/queries.ts';
import type { Caller } from './operation.ts';

export async function projectInScope(db: Db, caller: Caller, projectId: string): Promise<ProjectRow> {
  const project = await getProject(db, projectId);
  if (project.org_id !== caller.orgId) throw notFound('Project not found', 'PROJECT-ggr9s');
  return project;
}

/** The app, which must belong to the project named in the path. */
export async function appInScope(db: Db, caller: Caller, projectId: string, appId: string): Promise<AppRow> {
  const app = await getApp(db, appId);
  if (app.org_id !== caller.orgId || app.project_id !== projectId) throw notFound('App not found', 'APP-D5gs2');
  return app;
}

export async function userInScope(db: Db, caller: Caller, userId: string): Promise<UserRow> {
  const user = await getUserById(db, userId);
  if (user.org_id !== caller.orgId) throw notFound('User could not be found', 'QUERY-Dfbg2');
  return user;
}
