// Job definitions for wait states, named as SPEC.md "Job type naming that the
// engine produces for waits" says, so the runtime only ever creates a job of
// `job.type`: service and send tasks (and job-based business rule tasks) use
// their zeebe:taskDefinition type; script tasks wait as `script:<name or id>`;
// user tasks as `userTask`; receive tasks as `message:<messageName>`; message
// intermediate catch events as `event:message:<elementId>`.
import { dictionary } from './dict.ts';
import { feelSource, isFeel, valueExpr } from './expressions.ts';
import type { ZeebeExtensions } from './read-zeebe.ts';
import type { JobDefinition, ValueExpr } from './types.ts';

/** Camunda 8's default. */
export const DEFAULT_RETRIES: ValueExpr = { kind: 'literal', value: '3' };

function retriesOf(ext: ZeebeExtensions): ValueExpr {
  const raw = ext.taskDefinition?.retries;
  return raw === undefined || raw.trim() === '' ? { ...DEFAULT_RETRIES } : valueExpr(raw);
}

function headersOf(ext: ZeebeExtensions, extra: [string, string][] = []): Record<string, string> {
  const entries: [string, string][] = [];
  for (const h of ext.headers) if (h.key !== undefined && h.key !== '') entries.push([h.key, h.value ?? '']);
  entries.push(...extra);
  return dictionary(entries);
}

/** Names are laid out over several lines in diagrams; a job type is one line. */
function oneLine(name: string | undefined): string {
  return (name ?? '').replace(/\s+/g, ' ').trim();
}

/** The type of a task definition, or undefined when there is none or it is blank. */
export function taskDefinitionType(ext: ZeebeExtensions): string | undefined {
  const type = ext.taskDefinition?.type;
  return type === undefined || type.trim() === '' ? undefined : type;
}

export function taskDefinitionJob(ext: ZeebeExtensions): JobDefinition | undefined {
  const type = taskDefinitionType(ext);
  if (type === undefined) return undefined;
  return { type: valueExpr(type), retries: retriesOf(ext), headers: headersOf(ext) };
}

export function scriptJob(id: string, name: string | undefined, ext: ZeebeExtensions): JobDefinition {
  const extra: [string, string][] = [];
  if (ext.script?.expression !== undefined) extra.push(['script.expression', feelSource(ext.script.expression)]);
  if (ext.script?.resultVariable !== undefined) extra.push(['script.resultVariable', ext.script.resultVariable]);
  const label = oneLine(name) || id;
  return { type: { kind: 'literal', value: `script:${label}` }, retries: retriesOf(ext), headers: headersOf(ext, extra) };
}

export function userTaskJob(ext: ZeebeExtensions): JobDefinition {
  return { type: { kind: 'literal', value: 'userTask' }, retries: retriesOf(ext), headers: headersOf(ext) };
}

/** What a message wait's job tells its worker: the message name and the correlation key (FEEL source), if any. */
function messageOf(name: ValueExpr, correlationKey: string | undefined): NonNullable<JobDefinition['message']> {
  return correlationKey === undefined || correlationKey === '' ? { name } : { name, correlationKey };
}

/** `message:<name>`; a FEEL message name makes the type FEEL too. */
export function receiveTaskJob(messageName: string, ext: ZeebeExtensions, correlationKey?: string): JobDefinition {
  const type: ValueExpr = isFeel(messageName)
    ? { kind: 'feel', source: `"message:" + string(${feelSource(messageName)})` }
    : { kind: 'literal', value: `message:${messageName.trim()}` };
  const name: ValueExpr = isFeel(messageName) ? valueExpr(messageName) : { kind: 'literal', value: messageName.trim() };
  return { type, retries: retriesOf(ext), headers: headersOf(ext), message: messageOf(name, correlationKey && feelSource(correlationKey)) };
}

/** `event:message:<id>`; `correlationKey` is FEEL source, as the event definition holds it. */
export function messageCatchJob(id: string, ext: ZeebeExtensions, messageName?: ValueExpr, correlationKey?: string): JobDefinition {
  const job: JobDefinition = { type: { kind: 'literal', value: `event:message:${id}` }, retries: retriesOf(ext), headers: headersOf(ext) };
  if (messageName !== undefined) job.message = messageOf(messageName, correlationKey);
  return job;
}
