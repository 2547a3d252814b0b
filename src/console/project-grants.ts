// A project's grants to other orgs in the console (the B2B case): the list with each grant's
// roles and state, "Grant project" (the receiving org by its ID or a domain of it, the roles from the project's),
// deactivate / reactivate, and remove after a confirmation; through the API's AddProjectGrant,
// GetOrgByDomainGlobal, DeactivateProjectGrant, ReactivateProjectGrant and RemoveProjectGrant.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { ProjectGrantState } from '@zitadel/proto/zitadel/project_pb.js';
import { AppError, Code, invalidArgument } from '../platform/errors.ts';
import { GRANTED_ORG_MISSING } from '../grants/project-grants.ts';
import { html } from '../views/html.ts';
import { Checkbox, Input, PostForm, StateBadge, Submit, Table } from '../views/console/components.ts';
import { checkedValues } from './members.ts';
import type { ConsoleHandler, ConsolePage, ConsoleRouter } from './page.ts';
import { runStateChange, StateForms } from './actions.ts';

interface Grant {
  grantId: string;
  grantedOrgName: string;
  grantedOrgId: string;
  grantedRoleKeys: string[];
  state: ProjectGrantState;
}

export interface ProjectGrantsProps {
  page: ConsolePage;
  grants: Grant[];
  roles: { key: string; displayName: string }[];
  /** A path of the project's page (the actions post below it). */
  act: (rest: string) => string;
}

export function ProjectGrantsSection({ page, grants, roles, act }: ProjectGrantsProps) {
  const { t } = page;
  const grantPath = (g: Grant, rest: string) => act(`/project-grants/${encodeURIComponent(g.grantId)}${rest}`);
  return html`<section aria-labelledby="project-grants">
    <h2 id="project-grants">${t.projectGrantsTitle}</h2>
    <${Table}
      t=${t}
      caption=${t.projectGrantsTitle}
      head=${[t.org, t.roles, t.state, t.actions]}
      rows=${grants.map((g) => {
        const active = g.state === ProjectGrantState.ACTIVE;
        return [
          g.grantedOrgName || g.grantedOrgId,
          g.grantedRoleKeys.join(', '),
          html`<${StateBadge} t=${t} active=${active} />`,
          html`<${StateForms}
            t=${t}
            csrf=${page.csrf}
            active=${active}
            action=${(rest: string) => grantPath(g, rest)}
          />`,
        ];
      })}
    />
    <${PostForm} action=${act('/project-grants')} csrf=${page.csrf}>
      <${Input} name="grantedOrg" label=${t.grantedOrg} required=${true} help=${t.grantedOrgHelp} />
      <fieldset>
        <legend>${t.roles}</legend>
        ${roles.map(
          (r) =>
            html`<${Checkbox}
              name=${`granted:${r.key}`}
              idPrefix="project-grant-"
              label=${r.displayName || r.key}
              checked=${false}
            />`,
        )}
      </fieldset>
      <${Submit} label=${t.grantProject} kind="secondary" />
    <//>
  </section>`;
}

/** The org the form names: a domain (it has a dot) through GetOrgByDomainGlobal, else an org ID as it stands. */
async function grantedOrgId(page: ConsolePage, named: string): Promise<string> {
  if (!named.includes('.')) return named;
  const { org } = await page.run(M.method.getOrgByDomainGlobal, { domain: named });
  return org?.id ?? '';
}

/** The project page's helpers the routes use (projects.ts): a change of the page, and a confirmed removal. */
export interface ProjectPageActions {
  change(apply: (page: ConsolePage, projectId: string) => Promise<unknown>): ConsoleHandler;
  removal(
    name: (page: ConsolePage) => Promise<string>,
    remove: (page: ConsolePage) => Promise<unknown>,
  ): ConsoleHandler;
}

export function registerProjectGrants(router: ConsoleRouter, { change, removal }: ProjectPageActions): void {
  const grantId = (page: ConsolePage) => (page.request.params as { grantId: string }).grantId;
  router.post(
    '/projects/:id/project-grants',
    change(async (page, projectId) => {
      try {
        const orgId = await grantedOrgId(page, page.field('grantedOrg'));
        const roleKeys = checkedValues(page, 'granted:');
        return await page.run(M.method.addProjectGrant, { projectId, grantedOrgId: orgId, roleKeys });
      } catch (error) {
        // an org not found (by domain NOT_FOUND, by ID AddProjectGrant's precondition) is the form's error; a
        // project not the viewer's stays so: its page again is the 404
        if (error instanceof AppError && (error.code === Code.NotFound || error.id === GRANTED_ORG_MISSING))
          throw invalidArgument(page.t.errorNoSuchOrg!, 'CONSOLE-noorg');
        throw error;
      }
    }),
  );
  router.post(
    '/projects/:id/project-grants/:grantId/state',
    change((page, projectId) =>
      runStateChange(
        page,
        { reactivate: M.method.reactivateProjectGrant, deactivate: M.method.deactivateProjectGrant },
        { projectId, grantId: grantId(page) },
      ),
    ),
  );
  router.post(
    '/projects/:id/project-grants/:grantId/remove',
    removal(
      async (page) => {
        const projectId = (page.request.params as { id: string }).id;
        const { projectGrant } = await page.run(M.method.getProjectGrantByID, { projectId, grantId: grantId(page) });
        return projectGrant?.grantedOrgName ?? grantId(page);
      },
      (page) =>
        page.run(M.method.removeProjectGrant, {
          projectId: (page.request.params as { id: string }).id,
          grantId: grantId(page),
        }),
    ),
  );
}
