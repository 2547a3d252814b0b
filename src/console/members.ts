// Members of an org or a project in the console: the list, add by user name with roles from the API's
// List…MemberRoles, and remove; through AddOrgMember / AddProjectMember and their Remove… operations. Also the
// lookup of a user by user name that every "add a person" form uses (ListUsers, the org in context).
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import { invalidArgument } from '../platform/errors.ts';
import { html } from '../views/html.ts';
import { Checkbox, Input, PostForm, Submit, Table } from '../views/console/components.ts';
import type { ConsolePage } from './page.ts';

/** The id of the org's user with this user name; a name that names nobody is the form's error. */
export async function userIdByName(page: ConsolePage, userName: string): Promise<string> {
  const users = await page.run(M.method.listUsers, {
    query: { limit: 1 },
    queries: [{ query: { case: 'userNameQuery', value: { userName, method: TextQueryMethod.EQUALS_IGNORE_CASE } } }],
  });
  const user = users.result[0];
  if (!user) throw invalidArgument(page.t.errorNoSuchUser!, 'CONSOLE-nouser');
  return user.id;
}

/** The checked `prefix:value` boxes of the posted form. */
export function checkedValues(page: ConsolePage, prefix: string): string[] {
  const body = (page.request.body ?? {}) as Record<string, unknown>;
  return Object.keys(body)
    .filter((k) => k.startsWith(prefix) && body[k] === 'on')
    .map((k) => k.slice(prefix.length));
}

export interface MembersProps {
  page: ConsolePage;
  members: { userId: string; displayName: string; roles: string[] }[];
  roles: string[];
  /** Where the add form posts; removal posts to `${action}/${userId}/remove`. */
  action: string;
}

export function MembersSection({ page, members, roles, action }: MembersProps) {
  const { t } = page;
  const withQuery = (path: string) => {
    const [base, query] = action.split('?');
    return `${base}${path}${query ? `?${query}` : ''}`;
  };
  return html`<section aria-labelledby="members">
    <h2 id="members">${t.membersTitle}</h2>
    <${Table}
      t=${t}
      caption=${t.membersTitle}
      head=${[t.user, t.roles, t.actions]}
      rows=${members.map((m) => [
        m.displayName || m.userId,
        m.roles.join(', '),
        html`<${PostForm}
          action=${withQuery(`/${encodeURIComponent(m.userId)}/remove`)}
          csrf=${page.csrf}
          confirm=${t.confirmLead}
        >
          <${Submit} label=${t.remove} kind="secondary" />
        <//>`,
      ])}
    />
    <${PostForm} action=${action} csrf=${page.csrf}>
      <${Input} name="userName" idPrefix="member-" label=${t.userName} required=${true} />
      <fieldset>
        <legend>${t.roles}</legend>
        ${roles.map((r) => html`<${Checkbox} name=${`member:${r}`} label=${r} checked=${false} />`)}
      </fieldset>
      <${Submit} label=${t.addMember} kind="secondary" />
    <//>
  </section>`;
}
