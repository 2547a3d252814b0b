// The actions an object's console page offers, as every area runs them: a change posted on the page (`pageChange`),
// the state form and its change (`StateForms`, `runStateChange`), and a removal whose confirmation works without
// JavaScript (`removal`).
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { FastifyReply } from 'fastify';
import { ConfirmRemoval, PostForm, Submit } from '../views/console/components.ts';
import { html } from '../views/html.ts';
import { type ConsoleHandler, type ConsolePage, inputError } from './page.ts';

/** A change posted on an object's page (the route's `:id`): `apply`, then 303 to `saved` (the page with its notice),
 *  or the page again with the API's refusal of the input (400). */
export const pageChange =
  (
    show: (page: ConsolePage, flash: { error?: string | undefined; status?: number }) => Promise<FastifyReply>,
    saved: (page: ConsolePage, id: string) => string,
  ) =>
  (apply: (page: ConsolePage, id: string) => Promise<unknown>): ConsoleHandler =>
  async (page) => {
    const { id } = page.request.params as { id: string };
    try {
      await apply(page, id);
    } catch (error) {
      return show(page, { error: inputError(error), status: 400 });
    }
    return page.reply.redirect(saved(page, id), 303);
  };

/** A state form's change (its `active` field): `yes` runs the reactivation, anything else the deactivation; the two
 *  methods take one request shape. */
export function runStateChange<I extends DescMessage, O extends DescMessage>(
  page: ConsolePage,
  methods: { deactivate: DescMethodUnary<I, O>; reactivate: DescMethodUnary<DescMessage, DescMessage> },
  request: MessageInitShape<I>,
  orgId?: string,
): Promise<MessageShape<O>> {
  const reactivate = methods.reactivate as unknown as DescMethodUnary<I, O>;
  return page.run(page.field('active') === 'yes' ? reactivate : methods.deactivate, request, orgId);
}

/** An object's state form (posting `active` for runStateChange) and its removal form (confirmed by `removal`);
 *  `action(rest)` is the object's path with '/state' or '/remove'. */
export function StateForms(p: {
  t: ConsolePage['t'];
  csrf: string;
  active: boolean;
  action: (rest: string) => string;
}) {
  const { t } = p;
  return html`<${PostForm} action=${p.action('/state')} csrf=${p.csrf} class="inline">
      <input type="hidden" name="active" value=${p.active ? 'no' : 'yes'} />
      <${Submit} label=${p.active ? t.deactivate : t.reactivate} kind="secondary" />
    <//>
    <${PostForm} action=${p.action('/remove')} csrf=${p.csrf} class="inline" confirm=${t.confirmLead}>
      <${Submit} label=${t.remove} kind="secondary" />
    <//>`;
}

/** A removal: without `confirm=yes` the confirmation page (the server-side step), then the operation. */
export function removal(
  name: (page: ConsolePage) => Promise<string>,
  remove: (page: ConsolePage) => Promise<unknown>,
  back: (page: ConsolePage) => string,
  after: (page: ConsolePage) => string,
) {
  return async (page: ConsolePage) => {
    const { t } = page;
    if (page.field('confirm') !== 'yes') {
      const what = await name(page);
      const body = html`<${ConfirmRemoval}
        t=${t}
        name=${what}
        action=${page.request.url}
        back=${back(page)}
        csrf=${page.csrf}
      />`;
      return page.render('', t.confirmTitle!.replace('{name}', what), body);
    }
    await remove(page);
    return page.reply.redirect(after(page), 303);
  };
}
