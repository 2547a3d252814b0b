// Whether the database schema is the one this code was built for (docs/upgrading.md, "How a rolling upgrade works"). A
// node whose code is older than the schema (a newer release migrated it) or newer (the database was restored from
// before a migration) reports itself not ready rather than answering and failing requests with 500; it says so in the
// log, naming both versions, each time the verdict changes. The check is one out-of-band query: on every /readyz probe,
// and every few seconds in the background, so the log speaks even where no balancer probes.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db.ts';
import { schemaVersion } from './migrate.ts';

/** How often the schema version is read in the background: one query, a few seconds apart, not per request. */
export const SCHEMA_CHECK_INTERVAL_MS = 5000;

export interface SchemaVerdict {
  /** The newest migration the database has. */
  version: number;
  /** Why the node is not ready, naming both versions; undefined when the schema is the code's. */
  mismatch: string | undefined;
}

export class SchemaCheck {
  readonly #db: Db;
  readonly #codeVersion: number;
  readonly #log: FastifyBaseLogger;
  #lastVersion: number;
  #timer: NodeJS.Timeout | undefined;

  /** `codeVersion` is the newest migration shipped with this code, which the start applied. */
  constructor(db: Db, codeVersion: number, log: FastifyBaseLogger) {
    this.#db = db;
    this.#codeVersion = codeVersion;
    this.#log = log;
    this.#lastVersion = codeVersion;
  }

  /** Reads the schema version (throws when the database is unreachable) and logs a change of verdict. */
  async check(): Promise<SchemaVerdict> {
    const version = await schemaVersion(this.#db);
    const mismatch = this.#mismatch(version);
    if (version !== this.#lastVersion) {
      this.#lastVersion = version;
      const versions = { schemaVersion: version, codeVersion: this.#codeVersion };
      if (mismatch) this.#log.error(versions, `${mismatch}; reporting not ready`);
      else this.#log.info(versions, `database schema is at ${version}, this code's; ready again`);
    }
    return { version, mismatch };
  }

  /** Checks now and every `intervalMs` until stop(); an unreachable database is readiness's to report, not this
   *  loop's. */
  start(intervalMs = SCHEMA_CHECK_INTERVAL_MS): void {
    void this.check().catch(() => {});
    this.#timer = setInterval(() => void this.check().catch(() => {}), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #mismatch(version: number): string | undefined {
    const code = this.#codeVersion;
    if (version > code) {
      const next = 'a newer release migrated it, replace this node with that release';
      return `database schema is at ${version}, newer than ${code} of this code: ${next}`;
    }
    if (version < code) {
      const why = 'it was not migrated, or was restored from before a migration';
      return `database schema is at ${version}, older than ${code} of this code: ${why}`;
    }
    return undefined;
  }
}
