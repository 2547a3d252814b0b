// The roles a user holds, by resource: what the management API's permission checks read (compat.md §1, §4).
import type { Db } from '../platform/db.ts';
import { findMemberships } from './queries.ts';

export interface Roles {
  instance: ReadonlySet<string>;
  orgs: ReadonlyMap<string, ReadonlySet<string>>;
}

export async function rolesOf(db: Db, userId: string): Promise<Roles> {
  const instance = new Set<string>();
  const orgs = new Map<string, Set<string>>();
  for (const m of await findMemberships(db, userId)) {
    if (m.resource_type === 'instance') for (const r of m.roles) instance.add(r);
    else orgs.set(m.resource_id, new Set(m.roles));
  }
  return { instance, orgs };
}
