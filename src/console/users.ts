// Console area "Users" (issue 22), its list: one search box over user name, e-mail and display name (ZITADEL's
// orQuery of three STARTS_WITH_IGNORE_CASE queries, each served by its per-org index, so the page stays fast at a
// million users; test/management/list-plans.test.ts), sorted by user name, a page at a time. Every read is the
// API's ListUsers.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { UserFieldName, UserState, type SearchQuerySchema } from '@zitadel/proto/zitadel/user_pb.js';
import { html } from '../views/html.ts';
import { Pager, StateBadge, Table } from '../views/console/components.ts';
import type { ConsolePage, ConsoleRouter } from './page.ts';

const PAGE_SIZE = 20;
const offsetOf = (page: ConsolePage) => Math.max(0, Number((page.request.query as { offset?: string }).offset) || 0);

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

async function showList(page: ConsolePage) {
  const { t } = page;
  const q = String((page.request.query as { q?: unknown }).q ?? '')
    .trim()
    .slice(0, 200);
  const offset = offsetOf(page);
  const list = await page.run(M.method.listUsers, {
    query: { offset: BigInt(offset), limit: PAGE_SIZE, asc: true },
    sortingColumn: UserFieldName.USER_NAME,
    queries: typed(q),
  });
  const total = Number(list.details?.totalResult ?? 0);
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
          u.userName,
          human?.profile?.displayName ?? (u.type.case === 'machine' ? u.type.value.name : ''),
          human?.email?.email ?? '',
          html`<${StateBadge} t=${t} active=${u.state === UserState.ACTIVE} />`,
        ];
      })}
    />
    <${Pager}
      t=${t}
      total=${total}
      offset=${offset}
      limit=${PAGE_SIZE}
      href=${(o: number) => page.href(`/ui/console/users?${new URLSearchParams({ q, offset: String(o) })}`)}
    />`;
  return page.render('users', t.usersTitle!, body);
}

export function registerUsers(router: ConsoleRouter): void {
  router.get('/users', showList);
}
