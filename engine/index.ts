// The engine's public face: everything the API layer (api/) may use of the
// engine, and nothing else. The lint config holds api/ to this module, so a
// new need of the API is a deliberate line here rather than a reach into a
// subsystem's internals. Nothing inside engine/ imports it.
export { createEngine, EngineError, ModelRejected } from './partition/index.ts';
export type { CaseAction, CommandOptions, DeployOptions, Engine, EngineOptions, MessageToPublish, PublishOutcome, StartedCase } from './partition/index.ts';
// The engine's part of the configuration, and the helpers the service's configuration is built with.
export { blankAsUnset, configProblems, engineConfigSchema, mergeOverrides } from './config.ts';
export type { ConfigOverrides, EngineConfig } from './config.ts';

// What the engine counts, for the service to hand to prom-client.
export { JOB_KINDS, jobKindOfType, kindIndex } from './metrics.ts';
export type { ActivationTiming, BatchTally, EngineGauges, EngineMetrics, JobKind, KindCounts, RejectReason } from './metrics.ts';

export {
  agentsRepository,
  identityRepository,
  InvalidCursorError,
  isKey,
  ledgerRepository,
  loginRepository,
  parseVariableFilter,
  pendingMigrations,
  platformAppsRepository,
  StoreUnavailableError,
  WEBHOOK_EVENT_TYPES,
  webhookEventId,
} from './store/index.ts';
export type {
  AccountSummary,
  AgentRow,
  ApiKeyListing,
  CaseInstanceRecord,
  CaseVersionSummary,
  Charge,
  MailboxRow,
  PlatformAppRow,
  ChargeResult,
  CompletedTaskRecord,
  Db,
  DecisionVersionSummary,
  DefinitionStatistics,
  ElementInstanceEntry,
  IncidentRecord,
  InstanceStatistics,
  InstanceRecord,
  InstanceSummary,
  LedgerEntry,
  Page,
  PageRequest,
  ProcessVersionSummary,
  Store,
  TaskRecord,
  WebhookDeliveryRow,
  CommittedWebhookEvents,
  WebhookEndpointRow,
  WebhookEvent,
  WebhookEventType,
} from './store/index.ts';
export type { WebhookTaker } from './partition/webhook-taker.ts';

// The webhook dispatcher (api/webhooks) works the outbox with fixed statements of its own.
export { runStatement } from './store/statement.ts';
export type { Statement } from './store/statement.ts';

export { offerOf } from './queue/index.ts';
export type { ActivatedJob, Notices } from './queue/index.ts';
// The rate limiter keeps its buckets beside the queues' keys, under the same prefix and hash tags.
export { QueueKeys } from './queue/redis/keys.ts';

export { visibleVariables } from './runtime/index.ts';
export type { Variables } from './runtime/index.ts';

export { compileDmn, evaluateDecision } from './dmn/index.ts';
export type { CompiledDmn, EvaluatedDecision } from './dmn/index.ts';
export { BoundedCache } from './feel/bounded-cache.ts';

// The one module of request limits (every way in checks against it).
export { jsonDepthProblem, LIMITS, stringProblem, valueProblem, variablesProblem } from './limits.ts';
