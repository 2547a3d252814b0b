// The console's texts, English and German, in views/locales/console/: apart from the login pages'
// texts so that each area adds its own keys without touching the other's files.
import { readFileSync } from 'node:fs';
import { SUPPORTED_LOCALES, type Locale, type Texts } from '../views/i18n.ts';

const TEXTS = Object.fromEntries(
  SUPPORTED_LOCALES.map((locale) => [
    locale,
    Object.freeze(
      JSON.parse(readFileSync(new URL(`../../views/locales/console/${locale}.json`, import.meta.url), 'utf8')) as Texts,
    ),
  ]),
) as Record<Locale, Texts>;

export const consoleTexts = (locale: Locale): Texts => TEXTS[locale];
