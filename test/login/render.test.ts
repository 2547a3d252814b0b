import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Views, escapeHtml } from '../../src/login/render.ts';

function views(files: Record<string, string>): Views {
  const dir = mkdtempSync(join(tmpdir(), 'views-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, `${name}.html`), text);
  return new Views(dir);
}

describe('template renderer', () => {
  it('escapes every inserted value, in text and in attributes', () => {
    const v = views({ page: '<p title="{{x}}">{{x}}</p>' });
    expect(v.render('page', { x: `"><script>alert('1')</script>&` })).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;&amp;">' +
        '&quot;&gt;&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;&amp;</p>',
    );
    expect(escapeHtml('a=`b`')).toBe('a&#61;&#96;b&#96;');
  });

  it('never re-reads inserted values as tags', () => {
    const v = views({ page: '{{#user}}{{name}}{{/user}} {{name}}' });
    expect(v.render('page', { user: { name: '{{secret}}' }, secret: 'leak', name: '{{#user}}' })).toBe(
      '{{secret}} {{#user}}',
    );
  });

  it('repeats sections for lists, shows them for truthy values, and inverts with ^', () => {
    const v = views({
      page:
        '<ul>{{#items}}<li>{{label}}/{{outer}}</li>{{/items}}</ul>' +
        '{{#flag}}on{{/flag}}{{^flag}}off{{/flag}}{{^items}}none{{/items}}',
    });
    expect(v.render('page', { items: [{ label: 'a' }, { label: 'b' }], outer: 'o', flag: true })).toBe(
      '<ul><li>a/o</li><li>b/o</li></ul>on',
    );
    expect(v.render('page', { items: [], flag: '' })).toBe('<ul></ul>offnone');
  });

  it('includes partials, looks up dotted paths and renders missing values as empty', () => {
    const v = views({ page: '{{> head}}{{t.title}}|{{missing.deep}}|', head: '[{{t.lang}}]' });
    expect(v.render('page', { t: { title: 'T', lang: 'de' } })).toBe('[de]T||');
    expect(() => v.render('nope', {})).toThrow(/unknown view/);
  });
});
