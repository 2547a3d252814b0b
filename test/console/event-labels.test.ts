// The overview names every event the log can hold in each language: a new event type without its words fails here.
import { describe, expect, it } from 'vitest';
import { EVENT } from '../../src/events/types.ts';
import { eventLabel, labelledEventTypes } from '../../src/console/event-labels.ts';
import { SUPPORTED_LOCALES } from '../../src/views/i18n.ts';

const TYPES = Object.values(EVENT)
  .flatMap((group) => Object.values(group) as string[])
  .sort();

describe('the console words for event types', () => {
  it('has a label for every event type of the catalog, and no other, in every language', () => {
    for (const locale of SUPPORTED_LOCALES) {
      expect(labelledEventTypes(locale).sort()).toEqual(TYPES);
      for (const type of TYPES) expect(eventLabel(locale, type)).not.toBe(type);
    }
    expect(eventLabel('en', EVENT.project.appAdded)).toBe('App created');
    expect(eventLabel('de', EVENT.project.appAdded)).toBe('App angelegt');
  });

  it('shows a type of no catalog as it is', () => {
    expect(eventLabel('en', 'user.some.future.event')).toBe('user.some.future.event');
  });
});
