// The durable, partitioned engine (DESIGN §1, §4). See engine.ts.
export { createEngine, ModelRejected, type CommandOptions, type DeployOptions, type Engine, type EngineOptions } from './engine.ts';
export type { MessageToPublish } from './message-publish.ts';
export { engineConfig, type EngineConfig } from '../config.ts';
export { EngineError, type EngineErrorCode } from './engine-error.ts';
export { partitionOfKey } from './keys.ts';
export type { CaseAction, PublishOutcome, StartedCase, StartedInstance } from './commands.ts';
