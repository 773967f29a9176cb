// The Orca client library: a typed client for the REST API (OrcaClient),
// job workers (createWorker) and the errors both throw (OrcaError). Depends
// on nothing in the server's code, so it can be published on its own.
export { OrcaClient, type CallOptions, type ListInstancesQuery, type ModelFile, type OrcaClientOptions } from './orca-client.ts';
export { OrcaError, type ProblemDetails } from './errors.ts';
export type { RetryOptions } from './retry.ts';
export type { RetryEvent } from './transport.ts';
export type * from './types.ts';
export type { paths, operations, components } from './generated/openapi.ts';
export {
  BpmnError,
  CompletionWithResult,
  createWorker,
  JobFailure,
  type HandlerResult,
  type JobHandler,
  type Worker,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerStats,
} from './worker.ts';
