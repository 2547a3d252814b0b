// Calls a management method over one of the three encodings and returns the outcome in one shape,
// so a test can assert the same response or error on REST, gRPC (HTTP/2) and gRPC-Web (HTTP/1.1).
import { fromJson, toJson, type DescMethod, type DescService, type JsonValue } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';

export const ENCODINGS = ['rest', 'grpc', 'grpc-web'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export interface ApiCall {
  service: DescService;
  /** The method's proto name, e.g. "SetUpOrg". */
  method: string;
  /** The REST binding as ZITADEL documents it, e.g. ["POST", "/admin/v1/orgs/_setup"]. */
  rest: [verb: string, path: string];
  /** The request as proto JSON; REST sends it as the body (for bodiless bindings it is only used by gRPC). */
  body?: Record<string, unknown>;
  /** DELETE bindings with `body: "*"` (e.g. BulkRemoveUserGrant) send the body too. */
  deleteWithBody?: boolean;
}

export interface CallOptions {
  token?: string;
  orgId?: string;
}

export type Outcome =
  | { ok: true; status: number; json: Record<string, unknown> }
  | {
      ok: false;
      status: number;
      code: number;
      message: string;
      body?: Record<string, unknown>;
      wwwAuthenticate?: string | null;
    };

const transports = new Map<string, Transport>();

function transport(baseUrl: string, encoding: 'grpc' | 'grpc-web'): Transport {
  const key = `${encoding} ${baseUrl}`;
  let t = transports.get(key);
  if (!t) {
    t =
      encoding === 'grpc' ? createGrpcTransport({ baseUrl }) : createGrpcWebTransport({ baseUrl, httpVersion: '1.1' });
    transports.set(key, t);
  }
  return t;
}

export async function callApi(
  baseUrl: string,
  encoding: Encoding,
  call: ApiCall,
  options: CallOptions = {},
): Promise<Outcome> {
  const method = call.service.methods.find((m) => m.name === call.method);
  if (!method) throw new Error(`no method ${call.method}`);
  if (encoding === 'rest') return callRest(baseUrl, call, options);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.orgId) headers['x-zitadel-orgid'] = options.orgId;
  const client = createClient(call.service, transport(baseUrl, encoding)) as unknown as Record<
    string,
    (req: unknown, o: unknown) => Promise<never>
  >;
  try {
    const request = fromJson(method.input, JSON.parse(JSON.stringify(call.body ?? {})) as JsonValue);
    const response = await client[method.localName]!(request, { headers, timeoutMs: 20_000 });
    return {
      ok: true,
      status: 200,
      json: toJson(method.output as DescMethod['output'], response) as Record<string, unknown>,
    };
  } catch (error) {
    const e = ConnectError.from(error);
    if (e.code === Code.Unknown) throw error;
    return { ok: false, status: 0, code: e.code, message: e.rawMessage };
  }
}

export async function callRest(
  baseUrl: string,
  call: ApiCall,
  options: CallOptions = {},
  rawBody?: string,
): Promise<Outcome> {
  const [verb, path] = call.rest;
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.orgId) headers['x-zitadel-orgid'] = options.orgId;
  const hasBody = verb !== 'GET' && (verb !== 'DELETE' || call.deleteWithBody === true);
  if (hasBody) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method: verb,
    headers,
    body: hasBody ? (rawBody ?? JSON.stringify(call.body ?? {})) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.ok) return { ok: true, status: res.status, json };
  return {
    ok: false,
    status: res.status,
    code: json.code as number,
    message: json.message as string,
    body: json,
    wwwAuthenticate: res.headers.get('www-authenticate'),
  };
}

/** The response of a successful call; fails the test with the error otherwise. */
export function okJson<T = Record<string, unknown>>(outcome: Outcome): T {
  if (!outcome.ok) throw new Error(`call failed: ${outcome.code} ${outcome.message}`);
  return outcome.json as T;
}

/** SetUpOrg over REST with its first human: a user in an org of their own, as the self-service tests need one. */
export async function setUpOrgWithHuman(
  url: string,
  token: string,
  human: { userName: string; firstName: string; lastName: string; email: string; verified?: boolean; password: string },
): Promise<{ userId: string; orgId: string }> {
  const { userName, firstName, lastName, email, verified, password } = human;
  return okJson<{ userId: string; orgId: string }>(
    await callRest(
      url,
      {
        service: AdminService,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'],
        body: {
          org: { name: `Org of ${userName}` },
          human: {
            userName,
            profile: { firstName, lastName },
            email: verified ? { email, isEmailVerified: true } : { email },
            password,
          },
        },
      },
      { token },
    ),
  );
}
