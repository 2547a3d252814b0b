import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_LOCALES } from '../../src/views/i18n.ts';
import { consoleTexts } from '../../src/console/texts.ts';
import { consoleReturnPath } from '../../src/console/session.ts';

describe('console texts and return paths', () => {
  it('has one texts file per supported language, each with the same keys and no empty text', () => {
    const files = readdirSync(new URL('../../views/locales/console/', import.meta.url)).sort();
    expect(files).toEqual([...SUPPORTED_LOCALES].map((l) => `${l}.json`).sort());
    const english = Object.keys(consoleTexts('en')).sort();
    for (const locale of SUPPORTED_LOCALES) {
      expect(Object.keys(consoleTexts(locale)).sort()).toEqual(english);
      expect(consoleTexts(locale).lang).toBe(locale);
      for (const value of Object.values(consoleTexts(locale))) expect(value.trim()).not.toBe('');
    }
  });

  it('comes back only to a console page after the sign-in', () => {
    expect(consoleReturnPath('/ui/console/projects/1?org=2')).toBe('/ui/console/projects/1?org=2');
    expect(consoleReturnPath('/ui/console')).toBe('/ui/console');
    for (const url of ['//evil.example/ui/console', 'https://evil.example/', '/ui/console/../account', '/ui/consoleX'])
      expect(consoleReturnPath(url)).toBe('/ui/console');
  });
});
