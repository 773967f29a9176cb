// A leader's batch as a trace (tracing on): the span `orca.batch`, with the
// children `orca.batch.apply`, `orca.batch.commit` and `orca.batch.publish`,
// LINKED to the span of every command it carries that came with a sampled
// trace context (EngineCommand.trace). Only such a batch is traced: with
// tracing off the leader makes no tracing call; on, a batch none of whose
// commands was sampled costs one scan of their `trace` fields. The batch is a child of its first traced command's span,
// so a sampler that follows the parent keeps it whenever it kept a request
// the batch carries; the other requests reach it through their links.
import { ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import type { StreamEntry } from '../../queue/index.ts';
import { contextOf, failed, spanContextOf, type Tracer } from '../../tracing.ts';
import type { EngineCommand } from '../commands.ts';
import type { LocalCommand } from './intake.ts';

export class BatchTrace {
  private phase: Span | undefined;

  private constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}

  /** The trace of a batch of these commands, or undefined when none of them carries a sampled trace context. */
  static begin(tracer: Tracer, partition: number, entries: readonly StreamEntry[], local: readonly LocalCommand[]): BatchTrace | undefined {
    let links: Link[] | undefined;
    const add = (command: EngineCommand) => {
      if (command.trace === undefined) return;
      const linked = spanContextOf(command.trace);
      if (linked !== undefined) (links ??= []).push({ context: linked });
    };
    for (const entry of entries) add(entry.payload as EngineCommand);
    for (const command of local) add(command.payload);
    if (links === undefined) return undefined;
    const parent = trace.setSpanContext(ROOT_CONTEXT, links[0].context);
    const span = tracer.startSpan(
      'orca.batch',
      { links, attributes: { 'orca.partition': partition, 'orca.batch.commands': entries.length + local.length, 'orca.batch.links': links.length } },
      parent,
    );
    return new BatchTrace(tracer, span);
  }

  /** Ends the phase running, if any, and starts `name` (apply, commit, publish); returns its context, for work run in it. */
  enter(name: 'apply' | 'commit' | 'publish'): Context {
    this.phase?.end();
    this.phase = this.tracer.startSpan(`orca.batch.${name}`, {}, contextOf(this.span));
    return contextOf(this.phase);
  }

  /** Ends the batch: published, or failed by `error` (marked on the phase that failed and on the batch). */
  end(commands: number, error?: unknown): void {
    if (error !== undefined) {
      if (this.phase !== undefined) failed(this.phase, error);
      failed(this.span, error);
    } else {
      this.span.setStatus({ code: SpanStatusCode.OK });
    }
    this.phase?.end();
    this.phase = undefined;
    // What it carried once applied (a batch out of time leaves the rest for the next one).
    this.span.setAttribute('orca.batch.commands', commands);
    this.span.end();
  }
}
