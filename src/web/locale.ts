// The language of a page for a request: the request's ui_locales (OpenID Connect Core §3.1.2.1), then
// Accept-Language, then English. The languages themselves and their texts are the views' (views/i18n.ts).
import { SUPPORTED_LOCALES, type Locale } from '../views/i18n.ts';

const DEFAULT_LOCALE: Locale = 'en';

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
