// The gRPC and gRPC-Web encodings, served by connect-es from the same descriptors.
// Methods without an operation answer UNIMPLEMENTED; the Connect protocol is off, JSON is the REST gateway's.
import type { DescMethod, DescService, Message } from '@bufbuild/protobuf';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { connectError, toAppError } from './errors.ts';
import type { RequestCredentials } from './auth.ts';
import type { Invoke } from './invoke.ts';
import type { Operation } from './operation.ts';

type UnaryHandler = (request: Message, context: HandlerContext) => Promise<Message>;

export function registerRpc(
  app: FastifyInstance,
  services: readonly DescService[],
  operations: ReadonlyMap<DescMethod, Operation>,
  invoke: Invoke<RequestCredentials>,
  readMaxBytes: number,
): void {
  const routes = (router: ConnectRouter) => {
    for (const service of services) {
      const impl: Record<string, UnaryHandler> = {};
      for (const method of service.methods) {
        const op = operations.get(method);
        if (!op) continue;
        impl[method.localName] = async (request, context) => {
          const header = (name: string) => context.requestHeader.get(name) ?? undefined;
          try {
            return await invoke(
              op,
              { authorization: header('authorization'), orgIdHeader: header('x-zitadel-orgid') },
              () => request,
            );
          } catch (error) {
            throw connectError(toAppError(error, app.log));
          }
        };
      }
      router.service(service, impl as unknown as Parameters<ConnectRouter['service']>[1]);
    }
  };
  // Its own encapsulated scope: the plugin replaces the content-type parsers of the instance it is given.
  app.register(async (scope) => {
    scope.addHook('onRequest', async (_request, reply) => encodeGrpcMessageAsSpecified(reply.raw));
    await scope.register(fastifyConnectPlugin, { routes, grpc: true, grpcWeb: true, connect: false, readMaxBytes });
  });
}

// connect-es percent-encodes grpc-message with encodeURIComponent (":" becomes "%3A"), but @grpc/grpc-js, under
// ZITADEL's Node SDK, decodes it with decodeURI, which leaves "%3A" as is: clients would read "invalid X%3A ...".
// The gRPC spec only requires encoding bytes outside 0x20-0x7E and "%", which every decoder reverses, as Go does.
const GRPC_MESSAGE = 'grpc-message';

function specEncoded(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const bytes = Buffer.from(decodeURIComponent(value), 'utf8');
  return [...bytes]
    .map((b) =>
      b >= 0x20 && b <= 0x7e && b !== 0x25
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

function withSpecEncodedMessage(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object' || !(GRPC_MESSAGE in headers)) return headers;
  const h = headers as Record<string, unknown>;
  return { ...h, [GRPC_MESSAGE]: specEncoded(h[GRPC_MESSAGE]) };
}

function encodeGrpcMessageAsSpecified(response: FastifyReply['raw']): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => unknown;
  const addTrailers = response.addTrailers.bind(response) as (headers: unknown) => void;
  Object.assign(response, {
    writeHead: (status: number, ...rest: unknown[]) => writeHead(status, ...rest.map(withSpecEncodedMessage)),
    addTrailers: (headers: unknown) => addTrailers(withSpecEncodedMessage(headers)),
  });
}
