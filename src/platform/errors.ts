// One error type for the whole service layer (architecture.md §5, after ZITADEL's zerrors): a gRPC status code,
// a stable error ID and a message. Transports turn it into a REST body or a gRPC status; OIDC protocol errors
// stay oidc-provider's own.

/** gRPC status codes used by the API (compat.md §3). */
export const Code = {
  InvalidArgument: 3,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16,
} as const;
export type Code = (typeof Code)[keyof typeof Code];

export class AppError extends Error {
  override name = 'AppError';
  readonly code: Code;
  readonly id: string | undefined;
  /** Seconds after which the same call may succeed (a temporary refusal); REST sends it as Retry-After. */
  readonly retryAfter: number | undefined;

  constructor(code: Code, message: string, id?: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.id = id;
  }

  /** The message as ZITADEL shows it: the text followed by the error ID in parentheses. */
  get publicMessage(): string {
    return this.id ? `${this.message} (${this.id})` : this.message;
  }
}

export const invalidArgument = (message: string, id?: string) => new AppError(Code.InvalidArgument, message, id);
export const notFound = (message: string, id?: string) => new AppError(Code.NotFound, message, id);
export const alreadyExists = (message: string, id?: string) => new AppError(Code.AlreadyExists, message, id);
export const permissionDenied = (message: string, id?: string) => new AppError(Code.PermissionDenied, message, id);
export const failedPrecondition = (message: string, id?: string) => new AppError(Code.FailedPrecondition, message, id);
export const unauthenticated = (message: string, id?: string) => new AppError(Code.Unauthenticated, message, id);

// Unique and check violations, by constraint name (migrations/*.sql), as the errors the API reports.
const CONSTRAINTS: Record<string, () => AppError> = {
  orgs_name_unique: () => alreadyExists('Organisation already exists', 'ORG-lapo2m'),
  org_domains_domain_unique: () => alreadyExists('Domain already exists', 'ORG-i2nl'),
  users_user_name_unique: () => alreadyExists('User already exists', 'COMMAND-CtQ8w'),
};

/** Registers the mapping of a further constraint (used by domains whose tables come with later migrations). */
export function mapConstraint(name: string, toError: () => AppError): void {
  CONSTRAINTS[name] = toError;
}

/** The error a constraint's violation is reported as, for a check made before the write (the write still relies
 *  on the constraint when it races). */
export function constraintError(name: string): AppError {
  return CONSTRAINTS[name]!();
}

/** Turns a known database error into an AppError; anything else is rethrown unchanged (and becomes INTERNAL). */
export function fromDatabaseError(error: unknown): never {
  const e = error as { code?: string; constraint?: string };
  if (e && typeof e === 'object' && e.constraint && (e.code === '23505' || e.code === '23514' || e.code === '23503')) {
    const toError = CONSTRAINTS[e.constraint];
    if (toError) throw toError();
  }
  throw error;
}

/** Node's error for a request whose client disconnected before it was complete (`Error: aborted`, code
 *  ECONNRESET): the client's doing, not a server failure (issue 26 item 9), and not a database connection reset. */
export function isClientAbort(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return Boolean(e) && typeof e === 'object' && e.code === 'ECONNRESET' && e.message === 'aborted';
}

/** Whether an error means the database is unreachable or overloaded, which callers answer with 503. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (!e || typeof e !== 'object' || isClientAbort(e)) return false;
  if (e.code && /^(08|57P0[1-3]|53300)/.test(e.code)) return true;
  if (e.code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(e.code)) return true;
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout/i.test(e.message ?? '');
}
