// The composition root's steps as one function, used by `npm start` (main.ts) and by the tests, which start the
// real server: config → database → migrations → first start → app → listen.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { buildApp } from './app.ts';
import { openDb, type Db } from './platform/db.ts';
import { listMigrations, migrate } from './platform/migrate.ts';
import { createLogger } from './platform/logger.ts';
import { resolveMasterKey } from './platform/master-key.ts';
import { createSecretBox } from './platform/secrets.ts';
import { bootstrap } from './instance/bootstrap.ts';
import { createMetrics } from './platform/metrics.ts';
import type { Lifecycle } from './platform/health.ts';
import { HashAdmission } from './users/passwords.ts';
import { findOrgById } from './orgs/queries.ts';
import { createMailer } from './mail/mailer.ts';
import { MailSender } from './mail/sender.ts';
import { createSendMail } from './mail/transport.ts';
import { serveCommands, type CommandChannel } from './cli/handoff-server.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  config: Config;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Where the generated admin password was written, when this start created the admin with one. */
  adminPasswordFile: string | undefined;
  /** Drains (readiness 503 while still serving, GATEHOUSE_SHUTDOWN_DRAIN_MS), stops accepting, lets in-flight
   *  requests finish (bounded by the shutdown timeout), closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const secrets = createSecretBox(resolveMasterKey(config));
  const db = await openDb(config.database, log);
  let app: FastifyInstance | undefined;
  const lifecycle: Lifecycle = { draining: false };
  let mail: Mailing | undefined;
  try {
    const migrations = listMigrations();
    const applied = await migrate(db, migrations);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const { instance, adminPasswordFile } = await bootstrap(db, config, log);
    const hashing = new HashAdmission(config.hashing);
    const transport = createSendMail(config.mail, config.dataDir);
    const sender = new MailSender({ db, secrets, send: transport.send, log, pollMs: config.mail.pollMs });
    // the name the pages show (web/pages.ts), in every mail's subject
    const instanceName = (await findOrgById(db, instance.default_org_id))?.name ?? 'Gatehouse';
    mail = { sender, close: () => transport.close() };
    app = await buildApp({
      config,
      db,
      log,
      secrets,
      instance,
      schemaVersion: migrations.at(-1)?.version ?? 0,
      metrics: createMetrics(db, hashing),
      lifecycle,
      hashing,
      mailer: createMailer({ secrets, issuer: config.issuer, instanceName, nudge: () => sender.nudge() }),
    });
    // Fastify names the scheme after its own https option; TLS here comes from the server factory.
    const scheme = (address: string) => (config.tls ? address.replace(/^http:/, 'https:') : address);
    // The listening address is often another name of this machine than the issuer, which browsers must use.
    const listenTextResolver = (address: string) => `listening at ${scheme(address)} for ${config.issuer}`;
    const url = scheme(await app.listen({ port: config.port, host: config.host, listenTextResolver }));
    const running = app;
    const mailing = mail;
    mailing.sender.start();
    // The embedded database is this process's alone: the CLI's commands come here while it runs (cli/handoff.ts).
    const commands =
      config.database.kind === 'embedded'
        ? await serveCommands({ dataDir: config.database.dataDir, db, instance, log })
        : undefined;
    const close = () => shutdown(running, db, config, lifecycle, mailing, commands);
    return { app, db, config, url, adminPasswordFile, close };
  } catch (error) {
    await app?.close().catch(() => {});
    mail?.close();
    await db.close().catch(() => {});
    throw error;
  }
}

/** The background mail sender and its transport, stopped before the database closes. */
interface Mailing {
  sender: MailSender;
  close(): void;
}

async function shutdown(
  app: FastifyInstance,
  db: Db,
  config: Config,
  lifecycle: Lifecycle,
  mail: Mailing,
  commands: CommandChannel | undefined,
): Promise<void> {
  // No new CLI commands; those running finish within the shutdown timeout, before the database closes.
  const commandsDone = commands?.close(config.shutdownTimeoutMs);
  // Drain first: a balancer sees /readyz turn 503 and stops sending, while requests already on their way
  // (including those still in the accept backlog) are served instead of being reset when the listener closes.
  lifecycle.draining = true;
  if (config.shutdownDrainMs) await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, config.shutdownTimeoutMs);
  });
  try {
    await Promise.race([Promise.all([app.close(), commandsDone]), deadline]);
  } finally {
    clearTimeout(timer);
    await mail.sender.stop();
    mail.close();
    await db.close();
  }
}
