// Languages of the pages and their texts: one texts file per language in views/locales/;
// discovery's ui_locales_supported lists them. Which one a request gets is the web kernel's choice (web/locale.ts).
import { readFileSync } from 'node:fs';

export const SUPPORTED_LOCALES = ['en', 'de'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export type Texts = Readonly<Record<string, string>>;

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

/** Fills `{name}` placeholders of a text; the renderer escapes the result. */
export function format(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, key: string) => (key in values ? String(values[key]) : m));
}
