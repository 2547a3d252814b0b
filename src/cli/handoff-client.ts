// The CLI's side of the handoff (handoff.ts): with the embedded database, a command finds out whether a live process
// holds the data directory; if it is a server, the command goes to it over the socket and the CLI prints what comes
// back, exactly as it would have printed it, and exits with the command's exit code.
//
// What can go wrong, and the bounded waits:
// - the lock is free, or left by a process that died: the command opens the data directory itself;
// - a live process holds it but nothing answers on the socket (a server still starting, another CLI command, or a
//   socket left by a server that died while its pid lives on in another process): asked again every POLL_MS, the
//   command runs as soon as the directory is free or the server answers; after WAIT_MS it fails naming the process;
// - the server stops while the command runs (shutdown or crash), or takes longer than COMMAND_MS: the command fails
//   with exit code 1 and says that whether it took effect is unknown.
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { lockHolder } from '../platform/dir-lock.ts';
import type { CommandIo } from './command.ts';
import { HANDOFF_VERSION, readMessages, send, socketPath } from './handoff.ts';

/** Longer than a server's start on a busy machine (opening the database, migrations, the first start). */
const WAIT_MS = 60_000;
const POLL_MS = 200;
/** Longer than any command takes: they are single transactions, and a password hash at most. */
const COMMAND_MS = 120_000;

/** A running server that takes the CLI's commands. */
export interface ServerLink {
  run(name: string, args: string[], config: Config, io: CommandIo): Promise<number>;
}

/** The server holding the embedded data directory, connected; undefined when no process holds it (or on PostgreSQL,
 *  which the CLI shares with the servers). */
export async function serverHolding(config: Config): Promise<ServerLink | undefined> {
  if (config.database.kind !== 'embedded') return undefined;
  const dir = config.database.dataDir;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const pid = lockHolder(dir);
    if (pid === undefined) return undefined;
    const socket = await connectTo(socketPath(dir));
    if (socket) return link(socket, pid);
    if (Date.now() >= deadline)
      throw new Error(
        `the data directory ${dir} is in use by process ${pid}, which takes no commands (another gatehouse command, ` +
          `or a server still starting); try again when it is done`,
      );
    await sleep(POLL_MS);
  }
}

/** The connected socket, or undefined when nothing listens there (yet, or any more). */
function connectTo(path: string): Promise<Socket | undefined> {
  return new Promise((done, fail) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      done(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') done(undefined);
      else fail(new Error(`cannot reach the running server at ${path}: ${error.message}`));
    });
  });
}

function link(socket: Socket, pid: number): ServerLink {
  return {
    run: (name, args, config, io) =>
      new Promise((done, fail) => {
        let exited = false;
        const unknownOutcome = (what: string) =>
          new Error(
            `the server (process ${pid}) ${what}; whether the command took effect is unknown: look (a list command) ` +
              `before running it again`,
          );
        const timer = setTimeout(() => {
          socket.destroy();
          fail(unknownOutcome(`did not finish the command within ${COMMAND_MS / 1000} s`));
        }, COMMAND_MS);
        socket.on('error', () => {}); // 'close' follows
        socket.on('close', () => {
          clearTimeout(timer);
          if (!exited) fail(unknownOutcome('stopped before the command finished'));
        });
        readMessages(socket, (message) => {
          if (typeof message.stdout === 'string') io.stdout(message.stdout);
          else if (typeof message.stderr === 'string') io.stderr(message.stderr);
          else if (message.stdin === true)
            io.stdinLine().then(
              (line) => send(socket, { stdinLine: line }),
              (error: Error) => send(socket, { stdinError: error.message }),
            );
          else if (typeof message.exit === 'number') {
            exited = true;
            socket.end();
            done(message.exit);
          }
        });
        send(socket, { version: HANDOFF_VERSION, command: name, args, config: absolute(config) });
      }),
  };
}

/** The configuration with its data directory absolute: the server's working directory may be another. */
function absolute(config: Config): Config {
  const dataDir = resolve(config.dataDir);
  const database = config.database.kind === 'embedded' ? { ...config.database, dataDir } : config.database;
  return { ...config, dataDir, database };
}
