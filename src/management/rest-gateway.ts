// The REST encoding, a grpc-gateway equivalent driven by the descriptors: every method of the
// served services gets the route of its google.api.http binding under its file's openapiv2 basePath; the JSON
// body, path and query parameters become the request message, which goes through the same pipeline as gRPC.
import {
  getOption,
  ScalarType,
  toJsonString,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
} from '@bufbuild/protobuf';
import { http } from '@zitadel/proto/google/api/annotations_pb.js';
import type { HttpRule } from '@zitadel/proto/google/api/http_pb.js';
import { openapiv2_swagger } from '@zitadel/proto/protoc-gen-openapiv2/options/annotations_pb.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Code, invalidArgument } from '../platform/errors.ts';
import { classifyError } from '../platform/error-class.ts';
import { restError, toAppError } from './errors.ts';
import { decodeJson } from './json.ts';
import type { Invoke } from './invoke.ts';
import type { Operation } from './operation.ts';
import type { RequestCredentials } from './auth.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Binding {
  verb: string;
  path: string;
  body: string;
}

export function registerRestGateway(
  app: FastifyInstance,
  services: readonly DescService[],
  operations: ReadonlyMap<DescMethod, Operation>,
  invoke: Invoke<RequestCredentials>,
): void {
  for (const service of services) {
    const basePath = getOption(service.file, openapiv2_swagger).basePath;
    app.register(
      async (scope) => {
        // The body is parsed by the handler, after authentication (401 and 403 come before a malformed body's 400).
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
        const patterns: RegExp[] = [];
        for (const method of service.methods) {
          const binding = bindingOf(getOption(method, http));
          const route = toRoute(binding.path);
          patterns.push(route.pattern);
          const op = operations.get(method);
          scope.route({
            method: binding.verb.toUpperCase(),
            url: route.url,
            handler: async (request, reply) => {
              try {
                if (!op)
                  throw new AppError(Code.Unimplemented, `${service.typeName}.${method.name} is not implemented`);
                const output = await invoke(op, credentials(request), () =>
                  decodeJson(method.input, requestJson(method.input, binding, route.params, request)),
                );
                return reply.header('content-type', 'application/json').send(toJsonString(method.output, output));
              } catch (error) {
                return sendError(reply, toAppError(error, request.log));
              }
            },
          });
        }
        scope.setNotFoundHandler((request, reply) => {
          const path = request.url.slice(basePath.length).split('?')[0]!;
          const known = patterns.some((p) => p.test(path));
          return sendError(
            reply,
            known ? new AppError(Code.Unimplemented, 'Method Not Allowed') : new AppError(Code.NotFound, 'Not Found'),
            known ? 405 : 404,
          );
        });
        scope.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
          // Errors Fastify raises before the handler (body too large, unreadable body) are the client's: a clear 400
          // (never a 500), or 413 with RESOURCE_EXHAUSTED for a body over the limit.
          if (error.statusCode === 413)
            return sendError(reply, new AppError(Code.ResourceExhausted, 'request body too large'), 413);
          const kind = classifyError(error);
          if (!(error instanceof AppError) && kind.kind === 'status' && kind.status < 500)
            return sendError(reply, invalidArgument(`invalid request: ${error.message}`));
          return sendError(reply, toAppError(error, request.log));
        });
      },
      { prefix: basePath },
    );
  }
}

function bindingOf(rule: HttpRule): Binding {
  const verb = rule.pattern.case;
  if (!verb || !(HTTP_METHODS as readonly string[]).includes(verb))
    throw new Error(`unsupported google.api.http pattern ${verb}`);
  return { verb, path: rule.pattern.value as string, body: rule.body };
}

/** `/projects/{project_id}/roles/{role_key=**}` → `/projects/:p0/roles/*`, remembering which field each fills, and
 *  a pattern that recognises the path under any method (for 405). */
function toRoute(template: string): { url: string; params: Map<string, string>; pattern: RegExp } {
  const params = new Map<string, string>();
  let i = 0;
  const url = template.replace(/\{([a-z0-9_.]+)(=\*\*)?\}/g, (_m, field: string, rest?: string) => {
    const key = rest ? '*' : `p${i++}`;
    params.set(key, field);
    return rest ? '*' : `:${key}`;
  });
  const pattern = new RegExp(
    `^${template.replace(/\{[^}]+\}|[^{]+/g, (part) =>
      part.startsWith('{') ? (part.endsWith('=**}') ? '.+' : '[^/]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )}/?$`,
  );
  return { url, params, pattern };
}

function credentials(request: FastifyRequest): RequestCredentials {
  const orgId = request.headers['x-zitadel-orgid'];
  return { authorization: request.headers.authorization, orgIdHeader: Array.isArray(orgId) ? orgId[0] : orgId };
}

function requestJson(
  input: DescMessage,
  binding: Binding,
  params: Map<string, string>,
  request: FastifyRequest,
): Record<string, unknown> {
  let json: Record<string, unknown> = {};
  if (binding.body) {
    const body = parseBody(request.body as Buffer | undefined);
    json = binding.body === '*' ? (body as Record<string, unknown>) : { [binding.body]: body };
  } else {
    for (const [key, value] of Object.entries(request.query as Record<string, string | string[]>))
      setPath(input, json, key, value);
  }
  // Path parameters win over body members, as in grpc-gateway.
  const values = request.params as Record<string, string>;
  for (const [key, field] of params) setPath(input, json, field, values[key] ?? '');
  return json;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return {};
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw invalidArgument('invalid request body: not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidArgument('invalid request body: not valid JSON');
  }
}

/** Sets a dotted field path (`org.name`) from a path or query parameter, typed by the target field. */
function setPath(schema: DescMessage, json: Record<string, unknown>, path: string, value: string | string[]): void {
  const [head, ...rest] = path.split('.');
  const field = schema.fields.find((f) => f.name === head || f.jsonName === head);
  if (!field) return;
  if (rest.length && field.fieldKind === 'message') {
    json[field.jsonName] ??= {};
    const child = json[field.jsonName] as Record<string, unknown>;
    setPath(field.message, child, rest.join('.'), value);
    return;
  }
  if (rest.length) return;
  delete json[field.name];
  json[field.jsonName] =
    field.fieldKind === 'list' ? [value].flat().map((v) => scalar(field, v)) : scalar(field, [value].flat()[0]!);
}

function scalar(field: DescField, value: string): unknown {
  const isBool =
    (field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')) &&
    field.scalar === ScalarType.BOOL;
  return isBool && (value === 'true' || value === 'false') ? value === 'true' : value;
}

function sendError(reply: FastifyReply, error: AppError, status?: number): FastifyReply {
  const { status: mapped, body } = restError(error);
  if (error.code === Code.Unauthenticated) {
    reply.header(
      'www-authenticate',
      error.id === 'AUTH-7mr9s' ? 'Bearer realm="gatehouse"' : 'Bearer realm="gatehouse", error="invalid_token"',
    );
  }
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  return reply
    .code(status ?? mapped)
    .header('content-type', 'application/json')
    .send(JSON.stringify(body));
}
