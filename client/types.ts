// Names for the request and response shapes the client hands out, taken
// from the types generated from the served OpenAPI document
// (generated/openapi.ts), so they follow the server without hand copies.
import type { operations } from './generated/openapi.ts';

type Ok<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer T } }> ? T : never;
type JsonBody<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never;
export type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Variables = Record<string, unknown>;

export type ProcessDeployment = Ok<'postProcessDefinitions', 200>;
// POST /api/v1/models answers `cases` for a CMMN document; the client sends it .dmn files only.
export type DecisionDeployment = Extract<Ok<'postModels', 200>, { decisions: unknown }>;
export type Deployment = ({ kind: 'process' } & ProcessDeployment) | ({ kind: 'decision' } & DecisionDeployment);

export type StartInstanceRequest = JsonBody<'postProcessInstances'>;
export type StartedInstance = Ok<'postProcessInstances', 201>;
export type InstancePage = Ok<'getProcessInstances', 200>;
export type InstanceSummary = InstancePage['items'][number];
export type InstanceState = InstanceSummary['state'];
export type InstanceDetail = Ok<'getProcessInstancesByKey', 200>;
export type InstanceStatistics = Ok<'getProcessInstancesByKeyStatistics', 200>;
export type InstanceHistoryPage = Ok<'getProcessInstancesByKeyHistory', 200>;
export type DefinitionStatistics = Ok<'getProcessDefinitionsByBpmnProcessIdStatistics', 200>;
export type ProcessDefinitionPage = Ok<'getProcessDefinitions', 200>;
export type ProcessDefinition = Ok<'getProcessDefinitionsByBpmnProcessId', 200>;
export type Decision = Ok<'getDecisionsByDecisionId', 200>;

export type IncidentPage = Ok<'getIncidents', 200>;
export type Incident = IncidentPage['items'][number];
export type IncidentQuery = { state?: Incident['state']; processInstanceKey?: string; bpmnProcessId?: string; limit?: number; cursor?: string };

export type ActivateJobsRequest = JsonBody<'postJobsActivate'>;
export type ActivatedJob = Ok<'postJobsActivate', 200>['jobs'][number];
export type FailJobRequest = JsonBody<'postJobsByJobKeyFail'>;
export type CompleteJobRequest = JsonBody<'postJobsByJobKeyComplete'>;
/** Extension (Zeebe 8.8's job result): for the job of an ad-hoc subprocess, the inner elements to activate and whether it is done. */
export type AdHocJobResult = NonNullable<CompleteJobRequest['result']>;
/** An element of an ad-hoc subprocess to activate, with variables local to its path (extension). */
export type AdHocActivation = NonNullable<AdHocJobResult['activateElements']>[number];
/** Extension: a worker's BPMN error for its job. */
export type ThrowJobErrorRequest = JsonBody<'postJobsByJobKeyError'>;
export type CompleteTaskRequest = JsonBody<'postTasksByIdComplete'>;
/** Extension: a message to publish (docs/messages.md), and what publishing it answers. */
export type PublishMessageRequest = JsonBody<'postMessages'>;
export type PublishedMessage = Ok<'postMessages', 201>;
export type BroadcastSignalRequest = JsonBody<'postSignals'>;
export type BroadcastSignalResult = Ok<'postSignals', 201>;

export type TaskPage = Ok<'getTasks', 200>;
export type Task = Ok<'getTasksById', 200>;
export type TaskQuery = Query<'getTasks'>;

export type DecisionResult = Ok<'postDecisionsByDecisionIdEvaluate', 200>;
export type Account = Ok<'getAccount', 200>;
export type CreditGrantRequest = JsonBody<'postAdminCredits'>;
export type CreditGrant = Ok<'postAdminCredits', 201>;
export type TokenAnswer = Ok<'postToken', 200>;
