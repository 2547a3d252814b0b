// The table of served v1 methods in docs/api.md is generated from the operation registry: this keeps the committed
// copy equal to what the server serves, so CI fails when an operation is added without `npm run docs:methods`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { methodsTable, withMethodsTable } from '../../src/management/methods-table.ts';
import { managementOperations } from '../../src/management/plugin.ts';
import type { ManagementDeps } from '../../src/management/deps.ts';

const API_DOC = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('the methods table of docs/api.md', () => {
  it('is the one generated from the operation registry', () => {
    expect(withMethodsTable(API_DOC), 'run `npm run docs:methods`').toBe(API_DOC);
  });

  it('has one row per operation, with its REST binding', () => {
    const operations = managementOperations({} as ManagementDeps);
    const rows = methodsTable(operations)
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    expect(rows).toHaveLength(operations.length);
    const who = 'ORG_OWNER of the org in context, or IAM_OWNER';
    expect(rows).toContain(`| \`ManagementService/RemoveUser\` | \`DELETE /management/v1/users/{id}\` | ${who} |`);
    const members = 'PROJECT_OWNER(_VIEWER) of a project of the org';
    const listUsers = '`POST /management/v1/users/_search`';
    expect(rows).toContain(`| \`ManagementService/ListUsers\` | ${listUsers} | ${who}; ${members} |`);
    const update = '`PUT /management/v1/projects/{id}`';
    expect(rows).toContain(
      `| \`ManagementService/UpdateProject\` | ${update} | PROJECT_OWNER of the project, ${who} |`,
    );
    expect(rows).toContain('| `AdminService/ListOrgs` | `POST /admin/v1/orgs/_search` | IAM_OWNER |');
  });
});
