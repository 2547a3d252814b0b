// Log lines a person reads on a terminal: time, level, message and the fields that matter, instead of JSON. It formats
// the line pino has already written, so every redaction of logger.ts holds here as in the JSON: nothing reaches the
// terminal that the JSON line does not carry. Small and ours rather than pino-pretty, which runs in a worker thread
// of its own and would weigh on the memory at start.
import type { DestinationStream } from 'pino';
import type { Config } from '../config.ts';
import { bannerRows, READY, type ReadyFacts } from './ready.ts';

// Fastify's two lines per request (log-controller.js), made into one on a terminal.
const INCOMING = 'incoming request';
const COMPLETED = 'request completed';
// A person at a terminal opens pages that load several requests each: at info their lines would bury the banner and
// the warnings within minutes. On a terminal they are shown at debug and trace (one line each); the JSON lines, which
// log shippers read, keep them at info.
const REQUEST_LEVELS = new Set(['debug', 'trace']);
const DEBUG = 20;
// Requests seen coming in whose completion is not logged yet; bounded, should a completion never be logged.
const MAX_PENDING = 1000;
// Members every line shows in its own place, or never (the service name is the same on every line).
const PLACED = new Set(['level', 'time', 'msg', 'service', 'err']);
const ERROR_PLACED = new Set(['type', 'message', 'stack']);
const LEVELS: Record<number, [label: string, colour: number]> = {
  10: ['TRACE', 90],
  20: ['DEBUG', 36],
  30: ['INFO ', 32],
  40: ['WARN ', 33],
  50: ['ERROR', 31],
  60: ['FATAL', 35],
};
// Control characters (C0, DEL, C1) would let a logged value move the cursor or recolour the terminal.
const CONTROL = /\p{Cc}/gu;
const BARE = /^[^\s"=\p{C}]+$/u;

type LogRecord = Record<string, unknown>;

/** pino's destination for standard output: readable lines when a person reads it (GATEHOUSE_LOG_FORMAT auto: a
 *  terminal), else undefined, pino's own JSON lines. Colours only on a terminal. */
export function stdoutDestination(
  format: Config['logFormat'],
  level: string,
  out: NodeJS.WriteStream = process.stdout,
): DestinationStream | undefined {
  const terminal = out.isTTY === true;
  if (format === 'json' || (format === 'auto' && !terminal)) return undefined;
  return prettyDestination(out, { colors: terminal, requests: REQUEST_LEVELS.has(level) });
}

export function prettyDestination(
  out: { write(text: string): unknown },
  options: { colors: boolean; requests: boolean },
): DestinationStream {
  const paint = (colour: number, text: string) => (options.colors && colour ? `\x1b[${colour}m${text}\x1b[0m` : text);
  const pending = new Map<string, string>();

  const request = (record: LogRecord): string => {
    const id = String(record.reqId);
    if (record.msg === INCOMING) {
      const req = record.req as { method?: string; url?: string };
      if (!options.requests) return '';
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
      pending.set(id, `${req.method} ${req.url}`);
      return '';
    }
    if (!options.requests) return '';
    const seen = pending.get(id);
    pending.delete(id);
    const status = Number((record.res as { statusCode?: number }).statusCode);
    const shown = paint(status >= 500 ? 31 : status >= 400 ? 33 : 0, String(status));
    return `${clean(seen ?? '(request)')} ${shown} ${Math.round(Number(record.responseTime))} ms`;
  };

  /** A record's line; the message is shown as given, its control characters already escaped. */
  const line = (record: LogRecord, message: string): string => {
    const [label, colour] = LEVELS[Number(record.level)] ?? ['LOG  ', 0];
    const time = new Date(Number(record.time)).toTimeString().slice(0, 8);
    const fields = [...Object.entries(record).filter(([key]) => !PLACED.has(key)), ...errorFields(record.err)]
      .map(([key, value]) => ` ${paint(2, `${clean(key)}=`)}${show(value)}`)
      .join('');
    const stack = errorText(record.err)
      .map((text) => `\n    ${paint(2, clean(text))}`)
      .join('');
    return `${paint(2, time)} ${paint(colour, label)} ${message}${fields}${stack}\n`;
  };

  const banner = (facts: Partial<ReadyFacts>): string => {
    const rows = bannerRows(facts);
    const width = Math.max(...rows.map(([label]) => label.length)) + 2;
    const body = rows.map(([label, value]) => `  ${paint(2, label.padEnd(width))}${clean(value)}\n`).join('');
    return `\n  ${paint(1, 'Gatehouse is ready')}\n\n${body}\n`;
  };

  return {
    write(json: string) {
      let record: LogRecord;
      try {
        record = JSON.parse(json) as LogRecord;
      } catch {
        out.write(`${clean(json.trimEnd())}\n`);
        return;
      }
      if (record.msg === READY) return void out.write(banner(record as Partial<ReadyFacts>));
      if (record.reqId === undefined || (record.msg !== INCOMING && record.msg !== COMPLETED)) {
        return void out.write(line(record, clean(String(record.msg ?? ''))));
      }
      const text = request(record);
      if (text) out.write(line({ level: DEBUG, time: record.time }, text));
    },
  };
}

/** A field's value: bare when it reads unambiguously, else as JSON. */
function show(value: unknown): string {
  return clean(typeof value === 'string' && BARE.test(value) ? value : JSON.stringify(value));
}

/** A logged error's own members (a database error's code, a cause's details), beside its stack. */
function errorFields(err: unknown): [string, unknown][] {
  if (typeof err !== 'object' || err === null) return [];
  return Object.entries(err)
    .filter(([key]) => !ERROR_PLACED.has(key))
    .map(([key, value]) => [`err.${key}`, value]);
}

/** A logged error's stack (its message when it has none), one entry per line. */
function errorText(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const { stack, message } = err as { stack?: unknown; message?: unknown };
  return String(stack ?? message ?? JSON.stringify(err)).split('\n');
}

function clean(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
