// The console's words for the event log's types (views/locales/console-events/), English and German: "App created"
// where the log says project.application.added. Apart from the console's texts, as one catalog per language that
// test/console/event-labels.test.ts holds to events/types.ts's EVENT: every type has a label in every language.
import { readFileSync } from 'node:fs';
import { SUPPORTED_LOCALES, type Locale } from '../views/i18n.ts';

const LABELS = Object.fromEntries(
  SUPPORTED_LOCALES.map((locale) => [
    locale,
    new Map(
      Object.entries(
        JSON.parse(
          readFileSync(new URL(`../../views/locales/console-events/${locale}.json`, import.meta.url), 'utf8'),
        ) as Record<string, string>,
      ),
    ),
  ]),
) as unknown as Record<Locale, ReadonlyMap<string, string>>;

/** An event type's label in `locale`; a type of no catalog (an event written by another version) is shown as is. */
export const eventLabel = (locale: Locale, eventType: string): string => LABELS[locale].get(eventType) ?? eventType;

/** The labelled types of `locale` (for the catalog's test). */
export const labelledEventTypes = (locale: Locale): string[] => [...LABELS[locale].keys()];
