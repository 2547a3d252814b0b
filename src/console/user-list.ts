// Console area "Users": the list, with one search box over user name, e-mail and display name (ZITADEL's
// orQuery of three STARTS_WITH_IGNORE_CASE queries, each served by its per-org index, so the page stays fast at a
// million users; test/management/list-plans.test.ts), sorted by user name, a page at a time; and the creation of
// human and machine users; each user name links to the user's page (user-detail.ts). Every read and write is the
// API's operation (ListUsers, AddHumanUser, AddMachineUser).
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { UserFieldName, type SearchQuerySchema } from '@zitadel/proto/zitadel/user_pb.js';
import { html } from '../views/html.ts';
import { Flash, Input, Pager, PostForm, Submit, Table } from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, inputError, listQuery, pageLinks } from './page.ts';
import { UserStateBadge, userPath } from './user-detail.ts';

const PAGE_SIZE = 20;

/** A search box's text as a prefix of the user name, the e-mail or the display name. */
function typed(text: string): MessageInitShape<typeof SearchQuerySchema>[] {
  if (!text) return [];
  const method = TextQueryMethod.STARTS_WITH_IGNORE_CASE;
  const queries: MessageInitShape<typeof SearchQuerySchema>[] = [
    { query: { case: 'userNameQuery', value: { userName: text, method } } },
    { query: { case: 'emailQuery', value: { emailAddress: text, method } } },
    { query: { case: 'displayNameQuery', value: { displayName: text, method } } },
  ];
  return [{ query: { case: 'orQuery', value: { queries } } }];
}

/** What a refused creation form shows again: its fields (never the password) and the API's message. */
interface Flashed {
  notice?: string;
  error?: string;
  status?: number;
  form?: 'human' | 'machine';
  values?: Record<string, string>;
}

const HUMAN_FIELDS = ['userName', 'email', 'firstName', 'lastName'] as const;
const MACHINE_FIELDS = ['userName', 'name'] as const;

/** A new human's fields, as AddHumanUser and SetUpOrg's first owner take them (the password may stay empty). */
export function HumanFields(p: {
  t: ConsolePage['t'];
  values: Partial<Record<(typeof HUMAN_FIELDS)[number], string>>;
  userNameIdPrefix?: string;
}) {
  const { t, values } = p;
  return html`<${Input}
      idPrefix=${p.userNameIdPrefix}
      name="userName"
      label=${t.userName}
      value=${values.userName}
      required=${true}
    />
    <${Input} name="email" type="email" label=${t.email} value=${values.email} required=${true} />
    <div class="row">
      <${Input} name="firstName" label=${t.firstName} value=${values.firstName} required=${true} />
      <${Input} name="lastName" label=${t.lastName} value=${values.lastName} required=${true} />
    </div>
    <${Input} name="password" type="password" label=${t.password} autocomplete="new-password" maxLength=${1024} />`;
}

async function showList(page: ConsolePage, flash: Flashed = {}) {
  const { t } = page;
  const { q: typedText, offset } = listQuery(page);
  const q = typedText.trim();
  const list = await page.run(M.method.listUsers, {
    query: { offset: BigInt(offset), limit: PAGE_SIZE, asc: true },
    sortingColumn: UserFieldName.USER_NAME,
    queries: typed(q),
  });
  const total = Number(list.details?.totalResult ?? 0);
  const locks = await page.read(page.deps.reads.userLocks, { userIds: list.result.map((u) => u.id) });
  const lockOf = new Map(locks.map((l) => [l.userId, l]));
  const human = flash.form === 'human' ? (flash.values ?? {}) : {};
  const machine = flash.form === 'machine' ? (flash.values ?? {}) : {};
  const body = html`<form method="get" action="/ui/console/users" class="search" role="search">
      <input type="hidden" name="org" value=${page.orgId} />
      <label for="q">${t.usersSearchLabel}</label>
      <input id="q" name="q" type="search" value=${q} maxlength="200" />
      <button type="submit" class="secondary">${t.search}</button>
    </form>
    <${Table}
      t=${t}
      caption=${t.usersTitle}
      head=${[t.userName, t.displayName, t.email, t.state]}
      rows=${list.result.map((u) => {
        const human = u.type.case === 'human' ? u.type.value : undefined;
        return [
          html`<a href=${page.href(userPath(u.id))}>${u.userName}</a>`,
          human?.profile?.displayName ?? (u.type.case === 'machine' ? u.type.value.name : ''),
          human?.email?.email ?? '',
          html`<${UserStateBadge} t=${t} state=${u.state} lock=${lockOf.get(u.id)} />`,
        ];
      })}
    />
    <${Pager}
      t=${t}
      total=${total}
      offset=${offset}
      limit=${PAGE_SIZE}
      href=${pageLinks(page, '/users', q)}
    />
    <section aria-labelledby="new-human">
      <h2 id="new-human">${t.newHuman}</h2>
      ${flash.form === 'human' && html`<${Flash} error=${flash.error} />`}
      ${flash.notice && html`<${Flash} notice=${flash.notice} />`}
      <${PostForm} action=${page.href('/ui/console/users')} csrf=${page.csrf}>
        <input type="hidden" name="kind" value="human" />
        <${HumanFields} t=${t} values=${human} userNameIdPrefix="human-" />
        <${Submit} label=${t.createUser} />
      <//>
    </section>
    <section aria-labelledby="new-machine">
      <h2 id="new-machine">${t.newMachine}</h2>
      ${flash.form === 'machine' && html`<${Flash} error=${flash.error} />`}
      <${PostForm} action=${page.href('/ui/console/users')} csrf=${page.csrf}>
        <input type="hidden" name="kind" value="machine" />
        <${Input} idPrefix="machine-" name="userName" label=${t.userName} value=${machine.userName} required=${true} />
        <${Input} idPrefix="machine-" name="name" label=${t.name} value=${machine.name} required=${true} />
        <${Submit} label=${t.createMachine} />
      <//>
    </section>`;
  return page.render('users', t.usersTitle!, body, flash.status);
}

async function create(page: ConsolePage) {
  const machine = page.field('kind') === 'machine';
  const fields = machine ? MACHINE_FIELDS : HUMAN_FIELDS;
  const values = Object.fromEntries(fields.map((f) => [f, page.field(f)]));
  try {
    if (machine) await page.run(M.method.addMachineUser, { userName: values.userName, name: values.name });
    else
      await page.run(M.method.addHumanUser, {
        userName: values.userName,
        profile: { firstName: values.firstName, lastName: values.lastName },
        email: { email: values.email },
        initialPassword: page.field('password'),
      });
    return showList(page, { notice: page.t.saved });
  } catch (error) {
    const form = machine ? 'machine' : 'human';
    return showList(page, { error: inputError(error, page.t), status: 400, form, values });
  }
}

export function registerUserList(router: ConsoleRouter): void {
  router.get('/users', (page) => showList(page));
  router.post('/users', create);
}
