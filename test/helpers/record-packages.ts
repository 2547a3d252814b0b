// Loaded with `node --import` before a Gatehouse process starts: appends the name of every npm package the process
// resolves a module of, once each, to the file GATEHOUSE_TEST_PACKAGES_FILE names, so that a test can tell which
// libraries a start loads (test/start-memory.test.ts).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.GATEHOUSE_TEST_PACKAGES_FILE;
const seen = new Set<string>();
if (file)
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
      if (name && !seen.has(name)) {
        seen.add(name);
        appendFileSync(file, `${name}\n`);
      }
      return resolved;
    },
  });
