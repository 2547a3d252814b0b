// A machine user's personal access tokens on its page: the list (id, created, expires; never a token, which is not
// stored), the form that adds one (ZITADEL's AddPersonalAccessToken, an optional expiration date) and the token shown
// exactly this once in the answer to that POST (never in a URL or a cookie), and a removal per token
// (RemovePersonalAccessToken, after the confirmation of actions.ts's removal).
import type { PersonalAccessToken } from '@zitadel/proto/zitadel/user_pb.js';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { html } from '../views/html.ts';
import { Input, PostForm, ShownOnce, Submit, Table, utcText } from '../views/console/components.ts';
import { invalidArgument } from '../platform/errors.ts';
import type { ConsolePage } from './page.ts';

/** The token just added, for the one answer that shows it. */
export interface AddedPat {
  tokenId: string;
  token: string;
}

export function PatSection(p: { page: ConsolePage; userId: string; pats: PersonalAccessToken[]; added?: AddedPat }) {
  const { page } = p;
  const { t } = page;
  const path = (rest: string) => page.href(`/ui/console/users/${encodeURIComponent(p.userId)}/pats${rest}`);
  const minute = (d: Parameters<typeof utcText>[0] | undefined) => (d ? `${utcText(d, 16)} UTC` : '');
  return html`<section aria-labelledby="pats">
    <h2 id="pats">${t.patsTitle}</h2>
    <p class="help">${t.patsHelp}</p>
    ${
      p.added &&
      html`<p class="lead">${t.patOnceLead}</p>
      <${ShownOnce} t=${t} id="new-pat" label=${t.patToken} value=${p.added.token} />`
    }
    <${Table}
      t=${t}
      caption=${t.patsTitle}
      head=${[t.patId, t.created, t.expires, t.actions]}
      rows=${p.pats.map((pat) => [
        html`<code>${pat.id}</code>`,
        minute(pat.details?.creationDate),
        minute(pat.expirationDate),
        html`<${PostForm}
          action=${path(`/${encodeURIComponent(pat.id)}/remove`)}
          csrf=${page.csrf}
          confirm=${t.confirmLead}
        >
          <${Submit} label=${t.remove} kind="secondary" />
        <//>`,
      ])}
    />
    <${PostForm} action=${path('')} csrf=${page.csrf}>
      <${Input} name="expirationDate" type="date" label=${t.patExpirationDate} help=${t.patExpirationHelp} />
      <${Submit} label=${t.patAdd} kind="secondary" />
    <//>
  </section>`;
}

/** Adds a token with the date posted (the end of that day, UTC; none: no expiry, as in ZITADEL). */
export async function addPat(page: ConsolePage, userId: string): Promise<AddedPat> {
  const date = page.field('expirationDate');
  let expirationDate: ReturnType<typeof timestampFromDate> | undefined;
  if (date) {
    const end = /^\d{4}-\d\d-\d\d$/.test(date) ? new Date(`${date}T23:59:59Z`) : undefined;
    if (!end || Number.isNaN(end.getTime()))
      throw invalidArgument(`${page.t.patExpirationDate}: ${page.t.patDateFormat}`);
    expirationDate = timestampFromDate(end);
  }
  const { tokenId, token } = await page.run(M.method.addPersonalAccessToken, { userId, expirationDate });
  return { tokenId, token };
}
