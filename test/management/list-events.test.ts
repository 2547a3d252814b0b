// AdminService.ListEvents (the console's audit trail) on REST, gRPC and gRPC-Web: ZITADEL's filters (org, editor,
// object, aggregate and event types, time), newest first unless `asc`, `sequence` as the events after it, and
// IAM_OWNER only: an org's owner is refused. What it lists is named as the event catalog names it.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT, type AggregateType } from '../../src/events/types.ts';
import { ENCODINGS, callApi, type ApiCall } from '../helpers/management.ts';
import { calls, expectError, ok, startProvisioningServer, type ProvisioningServer } from '../helpers/provisioning.ts';

interface Event {
  editor: { userId: string };
  aggregate: { id: string; type: { type: string }; resourceOwner: string };
  sequence: string;
  creationDate: string;
  payload?: Record<string, unknown>;
  type: { type: string; localized: { key: string } };
}

const listEvents = (body: Record<string, unknown>): ApiCall => ({
  service: AdminService,
  method: 'ListEvents',
  rest: ['POST', '/admin/v1/events/_search'],
  body,
});

describe('ListEvents', () => {
  let p: ProvisioningServer;
  beforeAll(async () => {
    p = await startProvisioningServer();
  });
  afterAll(async () => p?.server.stop());

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      const events = async (body: Record<string, unknown>) =>
        (await ok<{ events?: Event[] }>(p.server, encoding, listEvents(body), p.adminToken)).events ?? [];

      it('filters by object, editor, org, types and time, in either order, after a sequence', async () => {
        const { id: projectId } = await ok<{ id: string }>(p.server, encoding, calls.addProject(), p.orgOwnerToken);
        const [added, ...others] = await events({ aggregateId: projectId });
        expect(others).toEqual([]);
        expect(added).toMatchObject({
          aggregate: { id: projectId, type: { type: 'project' }, resourceOwner: p.firstOrgId },
          type: { type: 'project.added', localized: { key: 'EventTypes.project.added' } },
          payload: { name: expect.any(String) },
        });
        const editor = added!.editor.userId;
        const byEditor = await events({ editorUserId: editor, aggregateTypes: ['project'], limit: 1000 });
        expect(byEditor.map((e) => e.sequence)).toContain(added!.sequence);
        expect(byEditor.every((e) => e.editor.userId === editor)).toBe(true);
        const sequences = byEditor.map((e) => BigInt(e.sequence));
        expect(sequences).toEqual([...sequences].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))); // newest first
        const ofOrg = { resourceOwner: p.firstOrgId, eventTypes: ['project.added'], limit: 1000 };
        expect((await events(ofOrg)).map((e) => e.aggregate.id)).toContain(projectId);
        expect(await events({ ...ofOrg, resourceOwner: p.otherOrgId, aggregateId: projectId })).toEqual([]);
        // `sequence`: the events after it, here ascending from just before the project's
        const after = await events({ sequence: String(BigInt(added!.sequence) - 1n), asc: true, limit: 1 });
        expect(after.map((e) => e.sequence)).toEqual([added!.sequence]);
        const inAnHour = new Date(Date.now() + 3600_000).toISOString();
        expect(await events({ aggregateId: projectId, from: inAnHour })).toEqual([]);
        expect(await events({ aggregateId: projectId, range: { until: inAnHour } })).toHaveLength(1);
        expect(await events({ aggregateId: projectId, range: { since: added!.creationDate } })).toHaveLength(1);
      });

      it("refuses an org's owner", async () => {
        const outcome = await callApi(p.server.url, encoding, listEvents({}), { token: p.orgOwnerToken });
        expectError(outcome, encoding, 7);
      });
    });
  }

  it('lists only events of the catalog, each under the aggregate it belongs to', async () => {
    const answer = await ok<{ events?: Event[] }>(p.server, 'rest', listEvents({ limit: 1000 }), p.adminToken);
    const events = answer.events ?? [];
    // the first start's org, users and memberships, SetUpOrg's and the projects above
    expect(new Set(events.map((e) => e.aggregate.type.type))).toEqual(new Set(['instance', 'org', 'project', 'user']));
    const catalogued = (e: Event) =>
      (Object.values(EVENT[e.aggregate.type.type as AggregateType] ?? {}) as string[]).includes(e.type.type);
    expect(events.filter((e) => !catalogued(e)).map((e) => `${e.aggregate.type.type} ${e.type.type}`)).toEqual([]);
  });
});
