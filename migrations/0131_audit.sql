-- The event log as an audit trail (AdminService.ListEvents, the console's audit page; issue 22): the events of one
-- org's objects, of one editor, or of one object whatever its type, in sequence order (src/events/audit.ts).
-- Without these a rare org, editor or object was looked for by walking the whole log from its newest event.
CREATE INDEX events_resource_owner_idx ON events (resource_owner, sequence);
CREATE INDEX events_creator_idx ON events (creator, sequence);
CREATE INDEX events_aggregate_id_idx ON events (aggregate_id, sequence);
