// The gRPC and gRPC-Web encodings, served by connect-es from the same descriptors (feasibility-findings.md Q2).
// Methods without an operation answer UNIMPLEMENTED; the Connect protocol is off, JSON is the REST gateway's.
import type { DescMethod, DescService, Message } from '@bufbuild/protobuf';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { FastifyInstance } from 'fastify';
import { connectError, toAppError } from './errors.ts';
import type { Invoke } from './invoke.ts';
import type { Operation } from './operation.ts';

type UnaryHandler = (request: Message, context: HandlerContext) => Promise<Message>;

export function registerRpc(app: FastifyInstance, services: readonly DescService[], operations: ReadonlyMap<DescMethod, Operation>, invoke: Invoke, readMaxBytes: number): void {
  const routes = (router: ConnectRouter) => {
    for (const service of services) {
      const impl: Record<string, UnaryHandler> = {};
      for (const method of service.methods) {
        const op = operations.get(method);
        if (!op) continue;
        impl[method.localName] = async (request, context) => {
          const header = (name: string) => context.requestHeader.get(name) ?? undefined;
          try {
            return await invoke(op, { authorization: header('authorization'), orgIdHeader: header('x-zitadel-orgid') }, () => request);
          } catch (error) {
            throw connectError(toAppError(error, app.log));
          }
        };
      }
      router.service(service, impl as unknown as Parameters<ConnectRouter['service']>[1]);
    }
  };
  // Its own encapsulated scope: the plugin replaces the content-type parsers of the instance it is given.
  app.register(fastifyConnectPlugin, { routes, grpc: true, grpcWeb: true, connect: false, readMaxBytes });
}
