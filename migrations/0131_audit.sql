-- The console's audit page (issue 22): the event log of one org's objects, or of one editor, newest first, a page
-- at a time (src/events/audit.ts). Without these a rare org or editor was looked for by walking the whole log
-- backwards from the newest event.
CREATE INDEX events_resource_owner_idx ON events (resource_owner, sequence);
CREATE INDEX events_creator_idx ON events (creator, sequence);
