// The local channel on which the CLI hands a command to the running server that holds the embedded database: a Unix
// socket inside the data directory. The directory is its owner's only (0700, platform/data-dir.ts) and the socket
// 0600, so only that user (and root) can open it; it adds no network surface. One command per connection, as lines
// of JSON:
//   CLI → server  {version, command, args, config} first; {stdinLine} or {stdinError} when asked for standard input
//   server → CLI  {stdout}, {stderr}, {stdin: true} (asks for the first line of standard input), and last {exit}
import { join } from 'node:path';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';

/** Raised when either side changes the messages, so that a CLI and a server of different releases refuse each other
 *  instead of misreading. */
export const HANDOFF_VERSION = 1;

export const socketPath = (dataDir: string) => join(dataDir, 'cli.sock');

/** The longest line either side reads: a request is the arguments and the configuration, far below it. */
const MAX_LINE = 1 << 20;

export interface HandoffRequest {
  version: number;
  command: string;
  args: string[];
  /** The CLI's configuration: the command runs with it, only the database is the server's. */
  config: Config;
}

export type ServerMessage = { stdout: string } | { stderr: string } | { stdin: true } | { exit: number };
export type ClientMessage = HandoffRequest | { stdinLine: string } | { stdinError: string };

export function send(socket: Socket, message: ServerMessage | ClientMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls onMessage with each line of JSON the socket receives; a line that is too long or not JSON ends the
 *  connection. */
export function readMessages(socket: Socket, onMessage: (message: Record<string, unknown>) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const message = parse(line);
      if (!message) return void socket.destroy();
      onMessage(message);
    }
    if (buffered.length > MAX_LINE) socket.destroy();
  });
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
