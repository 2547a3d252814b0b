import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_LOCALES, format, textsFor } from '../../src/views/i18n.ts';
import { chooseLocale } from '../../src/web/locale.ts';

describe('login page languages', () => {
  it('prefers ui_locales, then Accept-Language by quality, then English', () => {
    expect(chooseLocale('de', 'en')).toBe('de');
    expect(chooseLocale('fr-CA de-AT', 'en')).toBe('de');
    expect(chooseLocale('fr', 'fr;q=1, de;q=0.8, en;q=0.5')).toBe('de');
    expect(chooseLocale(undefined, 'en;q=0.4, de-CH;q=0.9')).toBe('de');
    expect(chooseLocale(undefined, 'de;q=0, en')).toBe('en');
    expect(chooseLocale(undefined, 'fr, es')).toBe('en');
    expect(chooseLocale(undefined, undefined)).toBe('en');
    expect(chooseLocale(['de'], undefined)).toBe('en');
  });

  it('has one texts file per supported language, each with the same keys', () => {
    const files = readdirSync(new URL('../../views/locales/', import.meta.url))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toEqual([...SUPPORTED_LOCALES].map((l) => `${l}.json`).sort());
    const english = Object.keys(textsFor('en')).sort();
    for (const locale of SUPPORTED_LOCALES) {
      const texts = JSON.parse(
        readFileSync(new URL(`../../views/locales/${locale}.json`, import.meta.url), 'utf8'),
      ) as Record<string, string>;
      expect(Object.keys(texts).sort()).toEqual(english);
      expect(texts.lang).toBe(locale);
      for (const value of Object.values(texts)) expect(value.trim()).not.toBe('');
    }
  });

  it('fills placeholders', () => {
    expect(format('in {seconds} s, {x}', { seconds: 30 })).toBe('in 30 s, {x}');
  });
});
