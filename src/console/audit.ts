// Console area "Audit" (the event log, filterable by object and by who did it, paged): the events of the
// org in context, newest first, through AdminService.ListEvents (so an instance owner's page, like the API; an
// org's owner is told so). Older pages are asked for by time: ListEvents' `sequence` keeps only newer events.
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import type { Event } from '@zitadel/proto/zitadel/event_pb.js';
import { html } from '../views/html.ts';
import { Input, Submit, Table, utcText } from '../views/console/components.ts';
import type { ConsolePage, ConsoleRouter } from './page.ts';

const PAGE = 50;
// Events of one transaction share their time: a page that ends among them asks for the next one up to that time
// and a little after, and leaves out what it showed already (up to SAME_TIME of them).
const SAME_TIME = 50;

const text = (value: unknown) => (typeof value === 'string' ? value.trim().slice(0, 200) : '');
const when = (e: Event) => (e.creationDate ? timestampDate(e.creationDate) : new Date(0));

async function showAudit(page: ConsolePage) {
  const { t } = page;
  const query = page.request.query as Record<string, unknown>;
  const object = text(query.object);
  const editor = text(query.editor);
  const form = html`<form method="get" action="/ui/console/audit" class="filters">
    <input type="hidden" name="org" value=${page.orgId} />
    <${Input} name="object" label=${t.auditObject} value=${object} />
    <${Input} name="editor" label=${t.auditEditor} value=${editor} />
    <${Submit} label=${t.search} />
  </form>`;
  if (!page.viewer.isIamOwner)
    return page.render('audit', t.auditTitle!, html`<p class="lead">${t.auditInstanceOnly}</p>`);
  // `before`: the time and sequence of the last event shown, for the next (older) page
  const [beforeTime, beforeSequence] = text(query.before).split('_');
  const before = beforeTime && beforeSequence && /^\d+$/.test(beforeSequence) ? new Date(beforeTime) : undefined;
  const older = before && !Number.isNaN(before.getTime());
  const { events } = await page.run(AdminService.method.listEvents, {
    resourceOwner: page.orgId,
    aggregateId: object,
    editorUserId: editor,
    limit: PAGE + SAME_TIME,
    ...(older
      ? { creationDateFilter: { case: 'range', value: { until: timestampFromDate(new Date(before.getTime() + 1)) } } }
      : {}),
  });
  const shown = (older ? events.filter((e) => e.sequence < BigInt(beforeSequence!)) : events).slice(0, PAGE);
  const last = shown.at(-1);
  const olderHref = (e: Event) => {
    const params = new URLSearchParams({ object, editor, before: `${when(e).toISOString()}_${e.sequence}` });
    return page.href(`/ui/console/audit?${params}`);
  };
  const next = last && shown.length === PAGE ? olderHref(last) : undefined;
  const body = html`${form}
    <${Table}
      t=${t}
      caption=${t.auditTitle}
      head=${[t.changed, t.event, t.auditObject, t.editor]}
      rows=${shown.map((e) => [
        utcText(when(e), 19),
        e.type?.type ?? '',
        html`${e.aggregate?.type?.type} <code>${e.aggregate?.id}</code>`,
        e.editor?.displayName || e.editor?.userId || '',
      ])}
    />
    ${next && html`<nav class="pager" aria-label=${t.pages}><a href=${next} rel="next">${t.auditOlder}</a></nav>`}`;
  return page.render('audit', t.auditTitle!, body);
}

export function registerAudit(router: ConsoleRouter): void {
  router.get('/audit', showAudit);
}
