// Languages of the login pages: chosen from the request's ui_locales, then Accept-Language, then
// English. One texts file per language in views/locales/; discovery's ui_locales_supported lists them.
import { readFileSync } from 'node:fs';

export const SUPPORTED_LOCALES = ['en', 'de'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export type Texts = Readonly<Record<string, string>>;

const DEFAULT_LOCALE: Locale = 'en';

const TEXTS: Record<Locale, Texts> = Object.fromEntries(
  SUPPORTED_LOCALES.map((locale) => [
    locale,
    Object.freeze(
      JSON.parse(readFileSync(new URL(`../../views/locales/${locale}.json`, import.meta.url), 'utf8')) as Texts,
    ),
  ]),
) as Record<Locale, Texts>;

export function textsFor(locale: Locale): Texts {
  return TEXTS[locale];
}

function supported(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return SUPPORTED_LOCALES.find((l) => l === primary);
}

/** Accept-Language entries by descending quality (RFC 9110 §12.5.4); q=0 means "not acceptable". */
function acceptLanguages(header: string): string[] {
  return header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((e) => e.tag && e.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((e) => e.tag);
}

export function chooseLocale(uiLocales: unknown, acceptLanguage: string | undefined): Locale {
  const requested = typeof uiLocales === 'string' ? uiLocales.split(' ').slice(0, 20) : [];
  for (const tag of [...requested, ...acceptLanguages(acceptLanguage ?? '')]) {
    const locale = supported(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

/** Fills `{name}` placeholders of a text; the renderer escapes the result. */
export function format(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, key: string) => (key in values ? String(values[key]) : m));
}
