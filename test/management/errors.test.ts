// The error model's last line: failures that are not the caller's are reported without detail.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { expect, it } from 'vitest';
import { callApi, ENCODINGS, type ApiCall } from '../helpers/management.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

const getOrg: ApiCall = {
  service: AdminService,
  method: 'GetOrgByID',
  rest: ['GET', '/admin/v1/orgs/1'],
  body: { id: '1' },
};

it('a lost database is reported as UNAVAILABLE / INTERNAL without internal detail, on every encoding', async () => {
  const { server, adminToken } = await startServerWithAdminKey();
  try {
    await server.db.pool.end();
    for (const encoding of ENCODINGS) {
      const outcome = await callApi(server.url, encoding, getOrg, { token: adminToken });
      expect(outcome, encoding).toMatchObject({ ok: false, code: 13, message: 'Errors.Internal (API-internal)' });
      if (encoding === 'rest') {
        expect(outcome.status).toBe(500);
        expect(JSON.stringify(outcome)).not.toMatch(/pool|stack|\.ts/i);
      }
    }
    // the cause is in the server's log, not in the answer
    expect(server.logs.join('')).toContain('management call failed');
  } finally {
    await server.app.close();
    await server.database.drop();
  }
});
