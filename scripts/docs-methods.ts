// Rewrites the table of served v1 methods in docs/api.md from the operation registry (src/management/methods-table.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withMethodsTable } from '../src/management/methods-table.ts';

const path = new URL('../docs/api.md', import.meta.url);
writeFileSync(path, withMethodsTable(readFileSync(path, 'utf8')));
