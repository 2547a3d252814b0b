// The server's side of the handoff (handoff.ts): a server on the embedded database holds its data directory, so the
// CLI's commands come here and run as the CLI would have run them, the same command functions with the CLI's
// configuration, writing to the CLI's standard output and error, on this server's database handle.
// Commands are logged by name and exit code only: their arguments and output may hold passwords, secrets and tokens.
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox } from '../platform/secrets.ts';
import type { InstanceRow } from '../instance/queries.ts';
import { execute, UsageError, type CommandIo, type DatabaseSource } from './command.ts';
import { COMMANDS } from './commands.ts';
import { HANDOFF_VERSION, readMessages, send, socketPath, type HandoffRequest } from './handoff.ts';

/** From the connection to its request: the CLI sends it at once. */
const REQUEST_WAIT_MS = 10_000;
/** For the first line of the CLI's standard input (--password-stdin), which is piped, never typed. */
const STDIN_WAIT_MS = 60_000;

export interface CommandChannelDeps {
  dataDir: string;
  db: Db;
  instance: InstanceRow;
  log: Logger;
}

export interface CommandChannel {
  /** Takes no more commands, lets those running finish for up to timeoutMs, then cuts them off. */
  close(timeoutMs: number): Promise<void>;
}

/** Listens for the CLI's commands; undefined (with a warning) when the socket cannot be made. */
export async function serveCommands(deps: CommandChannelDeps): Promise<CommandChannel | undefined> {
  const path = socketPath(deps.dataDir);
  // This process holds the data directory's lock: a socket found there was left by a server that died.
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const running = new Set<Promise<void>>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const job = serve(socket, deps);
    running.add(job);
    void job.finally(() => running.delete(job));
  });
  try {
    server.listen(path);
    await once(server, 'listening');
    chmodSync(path, 0o600);
  } catch (error) {
    server.close();
    deps.log.warn({ err: error, socket: path }, 'CLI commands cannot reach this server: stop it to run them');
    return undefined;
  }
  let closing: Promise<void> | undefined;
  return {
    close(timeoutMs) {
      closing ??= (async () => {
        server.close();
        await Promise.race([Promise.allSettled(running), sleep(timeoutMs, undefined, { ref: false })]);
        for (const socket of sockets) socket.destroy();
        rmSync(path, { force: true });
      })();
      return closing;
    },
  };
}

/** One connection: its request, the command run, its exit code. */
async function serve(socket: Socket, deps: CommandChannelDeps): Promise<void> {
  socket.on('error', () => {}); // the CLI went away; 'close' follows
  const next = inbox(socket);
  const request = await next(REQUEST_WAIT_MS);
  if (!request) return void socket.destroy();
  const io: CommandIo = {
    stdout: (text) => send(socket, { stdout: text }),
    stderr: (text) => send(socket, { stderr: text }),
    async stdinLine() {
      send(socket, { stdin: true });
      const answer = await next(STDIN_WAIT_MS);
      if (typeof answer?.stdinLine === 'string') return answer.stdinLine;
      throw new UsageError(typeof answer?.stdinError === 'string' ? answer.stdinError : 'no standard input arrived');
    },
  };
  const code = await run(request, io, deps);
  send(socket, { exit: code });
  socket.end();
  deps.log.info({ command: request.command, exitCode: code }, 'ran a command of the CLI');
}

type Message = Record<string, unknown>;

/** The messages of a connection, one at a time: the next, or undefined when none came within waitMs or the
 *  connection closed. */
function inbox(socket: Socket): (waitMs: number) => Promise<Message | undefined> {
  const queued: Message[] = [];
  let waiting: ((message: Message | undefined) => void) | undefined;
  readMessages(socket, (message) => (waiting ? waiting(message) : queued.push(message)));
  socket.on('close', () => waiting?.(undefined));
  return (waitMs) => {
    if (queued.length) return Promise.resolve(queued.shift());
    return new Promise((resolve) => {
      const timer = setTimeout(() => waiting?.(undefined), waitMs);
      waiting = (message) => {
        clearTimeout(timer);
        waiting = undefined;
        resolve(message);
      };
    });
  };
}

async function run(request: Record<string, unknown>, io: CommandIo, deps: CommandChannelDeps): Promise<number> {
  if (request.version !== HANDOFF_VERSION) {
    io.stderr(
      `gatehouse: the running server (process ${process.pid}) is of another release; run its own gatehouse ` +
        `command, or stop it first\n`,
    );
    return 1;
  }
  const { command: name, args, config } = request as unknown as HandoffRequest;
  const command = typeof name === 'string' && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const wellFormed = Array.isArray(args) && args.every((a) => typeof a === 'string') && typeof config === 'object';
  if (!command || !wellFormed || config === null) {
    io.stderr(`gatehouse: the running server (process ${process.pid}) does not know this command\n`);
    return 2;
  }
  return execute(name, io, () => command.run(args, { config, io, database: lentBy(deps, config) }));
}

/** This server's database handle, lent for one command: already migrated, with the instance of the first start.
 *  Secrets are sealed with the master key of the CLI's configuration, as when the CLI opens the database itself. */
function lentBy(deps: CommandChannelDeps, config: Config): DatabaseSource {
  return {
    serverPid: process.pid,
    withDb: (fn) => fn(deps.db),
    withInstance: (fn) =>
      fn({ db: deps.db, secrets: createSecretBox(resolveMasterKey(config)), instance: deps.instance }),
  };
}
