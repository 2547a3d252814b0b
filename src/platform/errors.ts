// One error type for the whole service layer (after ZITADEL's zerrors): a gRPC status code, a stable error ID and a
// message. Transports turn it into a REST body or a gRPC status; OIDC protocol errors stay oidc-provider's own.

/** gRPC status codes used by the API, as ZITADEL's v1 API answers them. */
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

/**
 * An object a command depends on, which ZITADEL's command layer checks as a precondition: missing, it is
 * FAILED_PRECONDITION with the command's own ID (e.g. the user of AddUserGrant, COMMAND-uXHNj, command/user.go
 * checkUserExists), not the NOT_FOUND a read of that object answers. Other errors pass unchanged.
 */
export async function precondition<T>(lookup: Promise<T>, message: string, id: string): Promise<T> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof AppError && error.code === Code.NotFound) throw failedPrecondition(message, id);
    throw error;
  }
}

// Unique, check and foreign-key violations, by constraint name (migrations/*.sql), as the errors the API reports:
// the one table, applied in one place (Db.tx, platform/db.ts), so no service maps database errors itself.
const CONSTRAINTS: Record<string, () => AppError> = {
  orgs_name_unique: () => alreadyExists('Organisation already exists', 'ORG-lapo2m'),
  org_domains_domain_unique: () => alreadyExists('Domain already exists', 'ORG-i2nl'),
  users_user_name_unique: () => alreadyExists('User already exists', 'COMMAND-CtQ8w'),
  projects_name_unique: () => alreadyExists('Project already exists', 'PROJECT-3M9sd'),
  projects_org_fk: () => notFound('Organisation not found', 'PROJECT-2n8fS'),
  // The foreign keys below back a precondition checked before the write (a race with a removal ends here): as in
  // ZITADEL's command layer, a missing referenced object is FAILED_PRECONDITION (precondition() above).
  memberships_user_fk: () => failedPrecondition('User could not be found', 'COMMAND-uXHNj'),
  project_roles_pkey: () => alreadyExists('Project role already exists', 'COMMAND-6Rg9W'),
  project_roles_project_fk: () => failedPrecondition('Project not found', 'COMMA-VCnwD'),
  project_grants_org_unique: () => alreadyExists('Project grant already exists', 'PROJECT-3b8fs'),
  user_grants_active_unique: () => alreadyExists('User grant already exists', 'COMMAND-4M0fs'),
  user_grants_user_fk: () => failedPrecondition('User could not be found', 'COMMAND-uXHNj'),
  user_grants_project_fk: () => failedPrecondition('Project not found', 'COMMAND-m9gsd'),
  user_metadata_user_fk: () => failedPrecondition('User could not be found', 'COMMAND-uXHNj'),
};

/** The error a constraint's violation is reported as, for a check made before the write (the write still relies
 *  on the constraint when it races). */
export function constraintError(name: string): AppError {
  return CONSTRAINTS[name]!();
}

/** A known constraint violation as its AppError; anything else unchanged (and, if it reaches a transport,
 *  INTERNAL). Applied by Db.tx to whatever a transaction throws. */
export function fromDatabaseError(error: unknown): unknown {
  const e = error as { code?: string; constraint?: string };
  if (e && typeof e === 'object' && e.constraint && (e.code === '23505' || e.code === '23514' || e.code === '23503')) {
    const toError = CONSTRAINTS[e.constraint];
    if (toError) return toError();
  }
  return error;
}

/** The status of an error Fastify raised before a handler ran (unreadable or oversized request): its own 4xx
 *  status, the client's doing; anything else is the server's, 500. The one place of this rule for every route. */
export function requestErrorStatus(error: { statusCode?: number }): number {
  const status = error.statusCode;
  return status !== undefined && status >= 400 && status < 500 ? status : 500;
}

/** Node's error for a request whose client disconnected before it was complete (`Error: aborted`, code ECONNRESET): the
 *  client's doing, not a server failure, and not a database connection reset. */
export function isClientAbort(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return Boolean(e) && typeof e === 'object' && e.code === 'ECONNRESET' && e.message === 'aborted';
}

/** Seconds a client is told to wait (Retry-After) while the database is unreachable: a Patroni failover with the
 *  tested settings takes 3 to 5 s (docs/operations.md, "Database failover"). */
export const DATABASE_RETRY_AFTER = 5;

/** The database is unreachable: 503 with Retry-After on REST, UNAVAILABLE on gRPC. */
export class DatabaseUnavailable extends AppError {
  override readonly retryAfter = DATABASE_RETRY_AFTER;
  constructor(cause: unknown) {
    super(Code.Unavailable, 'Errors.Internal.Unavailable', 'DB-unavail', { cause });
  }
}

/** Whether an error means the database is unreachable or overloaded, which callers answer with 503. A standby
 *  refusing a write (25006, a balancer still routing to a demoted primary) is the same: no primary reachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (!e || typeof e !== 'object' || isClientAbort(e)) return false;
  if (e.code && /^(08|57P0[1-3]|53300|25006)/.test(e.code)) return true;
  if (e.code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(e.code)) return true;
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout/i.test(e.message ?? '');
}

/** Whether a connection that had been made broke under a statement (the server restarted or failed over), as opposed
 *  to a timeout, whose statement may still be running. What was sent on it may or may not have been applied. */
export function isLostConnection(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (!e || typeof e !== 'object' || isClientAbort(e)) return false;
  if (e.code && /^(08|57P0[1-2])/.test(e.code)) return true;
  return e.code === 'ECONNRESET' || e.code === 'EPIPE' || e.message === 'Connection terminated unexpectedly';
}
