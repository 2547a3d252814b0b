// How every page and mail is written: preact components whose markup is htm's `html` tagged template,
// rendered to a string on the server. Node runs .ts by type stripping, so there is no TSX and no build step; every
// interpolated value is a text node or an attribute value that preact-render-to-string escapes, so data can never
// become markup (there is no raw-HTML path in src/views/).
import { Fragment, h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

export { html } from 'htm/preact';

/** What a view returns: one element, several, or nothing. */
export type Markup = VNode | VNode[] | string | null | undefined | false;

/** A whole document, as browsers and mail clients expect it (the doctype cannot be written as a vnode). */
export function renderDocument(root: Markup): string {
  return `<!doctype html>\n${renderToString(h(Fragment, null, root))}`;
}
