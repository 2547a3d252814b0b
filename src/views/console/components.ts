// The console's building blocks, shared by every area's pages: tables, a pager, labelled inputs, forms
// with their CSRF token, state badges, a secret shown once, and the removal confirmation.
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Texts } from '../i18n.ts';
import { format } from '../i18n.ts';
import { html, type Markup } from '../html.ts';

/** How the console writes a time: UTC, `2026-11-25 23:53:25` cut to `length` characters (10: the day, 16: the
 *  minute); '' for none. */
export function utcText(at: Date | Timestamp | undefined, length: 10 | 16 | 19): string {
  if (!at) return '';
  return (at instanceof Date ? at : timestampDate(at)).toISOString().replace('T', ' ').slice(0, length);
}

export function Table({ caption, head, rows, t }: { caption: string; head: string[]; rows: Markup[][]; t: Texts }) {
  if (rows.length === 0) return html`<p class="empty">${t.empty}</p>`;
  // a table wider than a small screen scrolls in its own box, not the page; focusable, so a keyboard scrolls it too
  return html`<div class="table-wrap" tabindex="0">
    <table>
      <caption class="visually-hidden">${caption}</caption>
      <thead>
        <tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr>
      </thead>
      <tbody>
        ${rows.map((cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)}
      </tbody>
    </table>
  </div>`;
}

/** A list page's search box: a GET form to `action` that keeps the org in context. */
export function SearchBox(p: { t: Texts; action: string; orgId: string; label: string | undefined; q: string }) {
  return html`<form method="get" action=${p.action} class="search" role="search">
    <input type="hidden" name="org" value=${p.orgId} />
    <label for="q">${p.label}</label>
    <input id="q" name="q" type="search" value=${p.q} maxlength="200" />
    <button type="submit" class="secondary">${p.t.search}</button>
  </form>`;
}

/** Previous/next links over a list with ZITADEL's offset and limit; `href` builds the link of an offset. */
export function Pager(p: { t: Texts; total: number; offset: number; limit: number; href: (offset: number) => string }) {
  if (p.total <= p.limit && p.offset === 0) return null;
  const to = Math.min(p.offset + p.limit, p.total);
  return html`<nav class="pager" aria-label=${p.t.pages}>
    ${p.offset > 0 && html`<a href=${p.href(Math.max(0, p.offset - p.limit))} rel="prev">${p.t.previous}</a>`}
    <span>${format(p.t.pageOf!, { from: p.total ? p.offset + 1 : 0, to, total: p.total })}</span>
    ${to < p.total && html`<a href=${p.href(to)} rel="next">${p.t.next}</a>`}
  </nav>`;
}

export interface InputProps {
  name: string;
  label: string | undefined;
  value?: string | undefined;
  type?: 'text' | 'email' | 'password' | 'url' | 'number';
  required?: boolean;
  maxLength?: number;
  help?: string | undefined;
  /** A field prefix, so two forms of one page have distinct ids. */
  idPrefix?: string;
  autocomplete?: string;
  /** Bounds of a number. */
  min?: number;
  max?: number;
}

export function Input(p: InputProps) {
  const id = `${p.idPrefix ?? ''}${p.name}`;
  return html`<div class="field">
    <label for=${id}>${p.label}</label>
    <input
      id=${id}
      name=${p.name}
      type=${p.type ?? 'text'}
      value=${p.value ?? ''}
      required=${p.required ?? false}
      maxlength=${p.type === 'number' ? undefined : (p.maxLength ?? 200)}
      min=${p.min}
      max=${p.max}
      autocomplete=${p.autocomplete ?? 'off'}
      aria-describedby=${p.help ? `${id}-help` : undefined}
    />
    ${p.help && html`<p class="help" id=${`${id}-help`}>${p.help}</p>`}
  </div>`;
}

/** The ids of a field's help and problem texts, for its aria-describedby. */
const describedBy = (id: string, help: string | undefined, problem: string | undefined) =>
  [help && `${id}-help`, problem && `${id}-problem`].filter(Boolean).join(' ') || undefined;

/** A multi-line field; `problem` is what keeps the value from working, shown under it and announced with it. */
export function TextArea(p: {
  name: string;
  label: string | undefined;
  value: string;
  help?: string | undefined;
  problem?: string | undefined;
}) {
  return html`<div class="field">
    <label for=${p.name}>${p.label}</label>
    <textarea
      id=${p.name}
      name=${p.name}
      rows="3"
      aria-describedby=${describedBy(p.name, p.help, p.problem)}
      aria-invalid=${p.problem ? 'true' : undefined}
    >
${p.value}</textarea
    >
    ${p.help && html`<p class="help" id=${`${p.name}-help`}>${p.help}</p>`}
    ${p.problem && html`<p class="error" id=${`${p.name}-problem`}>${p.problem}</p>`}
  </div>`;
}

export function Checkbox(p: {
  name: string;
  label: string | undefined;
  checked: boolean;
  idPrefix?: string;
  help?: string | undefined;
}) {
  const id = `${p.idPrefix ?? ''}${p.name}`;
  return html`<div class="check">
    <input
      type="checkbox"
      id=${id}
      name=${p.name}
      value="on"
      checked=${p.checked}
      aria-describedby=${describedBy(id, p.help, undefined)}
    />
    <label for=${id}>${p.label}</label>
  </div>
  ${p.help && html`<p class="help check-help" id=${`${id}-help`}>${p.help}</p>`}`;
}

/** A POST form with the console's CSRF token. */
export function PostForm(p: { action: string; csrf: string; children: Markup; class?: string; confirm?: string }) {
  return html`<form method="post" action=${p.action} class=${p.class} data-confirm=${p.confirm}>
    <input type="hidden" name="csrf" value=${p.csrf} />
    ${p.children}
  </form>`;
}

export const Submit = ({ label, kind = 'primary' }: { label: string | undefined; kind?: 'primary' | 'secondary' }) =>
  html`<button type="submit" class=${kind}>${label}</button>`;

export const StateBadge = ({ t, active }: { t: Texts; active: boolean }) =>
  html`<span class=${active ? 'badge ok' : 'badge'}>${active ? t.active : t.inactive}</span>`;

/** A form-wide message: a saved change or the API's refusal. */
export const Flash = ({ notice, error }: { notice?: string | undefined; error?: string | undefined }) =>
  html`${notice && html`<p class="notice" role="status" id="notice">${notice}</p>`}
  ${error && html`<p class="alert" role="alert" id="form-error">${error}</p>`}`;

/** A value the server never shows again (a client secret): to copy (console.js) or to download as a file. */
export function ShownOnce(p: { t: Texts; id: string; label: string | undefined; value: string }) {
  return html`<div class="field shown-once">
    <label for=${p.id}>${p.label}</label>
    <div class="copy-row">
      <input id=${p.id} type="text" readonly value=${p.value} />
      <button type="button" class="secondary" data-copy=${p.id} data-copied=${p.t.copied} hidden>${p.t.copy}</button>
    </div>
  </div>`;
}

/** The key file of a new app: its ids and secret as JSON, a download without a request to the server. */
export function KeyFileLink({ t, fileName, content }: { t: Texts; fileName: string; content: object }) {
  const href = `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(content, null, 2))}`;
  return html`<p><a class="button secondary" id="download-key-file" href=${href} download=${fileName}>
    ${t.downloadKeyFile}
  </a></p>`;
}

/** The server-side step of every removal: a page that names what goes and posts `confirm=yes`. */
export function ConfirmRemoval(p: { t: Texts; name: string; action: string; back: string; csrf: string }) {
  return html`<p class="lead">${p.t.confirmLead}</p>
    <${PostForm} action=${p.action} csrf=${p.csrf}>
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="primary danger">${p.t.confirmRemove}</button>
      <a class="button secondary" href=${p.back}>${p.t.cancel}</a>
    <//>`;
}

/** A labelled choice of one value. */
export function Select(p: { name: string; label: string | undefined; value: string; options: [string, string][] }) {
  return html`<div class="field">
    <label for=${p.name}>${p.label}</label>
    <select id=${p.name} name=${p.name}>
      ${p.options.map(([value, label]) => html`<option value=${value} selected=${value === p.value}>${label}</option>`)}
    </select>
  </div>`;
}
