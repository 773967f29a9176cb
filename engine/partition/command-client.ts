// The engine's command client: sends a command to the partition that owns
// it and waits for the committed reply. When this process leads the
// partition, the command goes to the leader in memory (the same batch,
// commit and reply, without the stream and pub/sub round trips); otherwise,
// or when that leader stops first, over the partition's stream. Commands no
// client named get a key made up here (`fresh`), and a partition with too
// many commands waiting refuses new ones (backpressure); those refusals and
// commands left without an answer are counted here (rejections a leader
// answers are counted by the leader). A command sent with an origin (a
// client's keyed request) is answered only by a result of the same request:
// another request's under the same key is KEY_REUSED. With a tracer (tracing
// on) each send is a span, and a command sent from a sampled span carries
// that span's trace context to the leader (engine/tracing.ts).
import { randomUUID } from 'node:crypto';
import type { EngineMetrics } from '../metrics.ts';
import { inSpan, sampledTraceparent, type Tracer } from '../tracing.ts';
import type { Queues } from '../queue/index.ts';
import type { CommandReply, EngineCommand } from './commands.ts';
import { EngineError } from './engine-error.ts';
import { LeaderGone } from './leader/index.ts';
import type { Shard } from './shard.ts';

/** Sends a command to `partition` and resolves with its committed, successful reply (a rejection is thrown as an EngineError). */
export type SendCommand = (partition: number, command: EngineCommand, commandKey?: string, limit?: number) => Promise<CommandReply & { ok: true }>;

/** Sends a publish's or broadcast's first command: under the client's key and origin when the call has them (engine.ts sendKeyed). */
export type SendHome = (partition: number, command: EngineCommand, limit: number) => ReturnType<SendCommand>;

export function commandClient(parts: {
  queues: Queues;
  shard?: Shard;
  replyTimeoutMs: number;
  maxPending: number;
  metrics: EngineMetrics;
  /** Tracing on: each command is a span, and carries its sender's trace context when that is sampled. */
  tracer?: Tracer;
}): SendCommand {
  const { queues, shard, replyTimeoutMs, maxPending, metrics, tracer } = parts;
  const freshKey = freshKeys();

  /**
   * Sends a command and waits for its committed reply. With `limit`, the
   * command is accepted only while fewer than `limit` commands are pending
   * on the partition (else BACKPRESSURE, nothing appended). When this
   * process leads the partition, the command goes to the leader in memory
   * (the same batch, commit and reply, without the stream and pub/sub round
   * trips); otherwise, or when that leader stops first, over the stream.
   */
  async function send(partition: number, command: EngineCommand, commandKey?: string, limit?: number): Promise<CommandReply & { ok: true }> {
    const key = commandKey ?? freshKey();
    // `command` is the caller's literal, made for this call: marked in place rather than copied.
    if (commandKey === undefined) command.fresh = true;
    let payload = command;
    let reply: CommandReply | undefined;
    let viaStream = true;
    const local = shard?.leaderOf(partition)?.submit(key, payload, limit);
    if (local === 'full') throw backpressure(partition);
    if (local !== undefined) {
      try {
        reply = await withTimeout(local, replyTimeoutMs);
        viaStream = false;
      } catch (err) {
        if (!(err instanceof LeaderGone)) throw err;
        if (err.mayBeApplied) {
          // It may have been applied: it goes without its fresh mark, so the next leader looks it up.
          const { fresh: _fresh, ...unmarked } = command;
          payload = err.batchKey === undefined ? unmarked : { ...unmarked, batchKey: err.batchKey };
        }
      }
    }
    if (viaStream) reply = await sendOverStream(partition, key, payload, limit);
    if (reply === undefined) {
      metrics.commandRejected('timeout');
      throw new EngineError(
        'TIMEOUT',
        `No committed answer from partition ${partition} within ${replyTimeoutMs} ms; retry with the same command key to get the original result.`,
      );
    }
    // Checked before the result counts, a rejection included: the first result belongs to the request that was applied.
    if (command.origin !== undefined && reply.origin?.fingerprint !== command.origin.fingerprint) {
      throw new EngineError('KEY_REUSED', `Command key '${key}' was used before for a different request; its result answers only that request.`);
    }
    if (!reply.ok) throw new EngineError(reply.code, reply.message);
    return reply;
  }

  function backpressure(partition: number): EngineError {
    metrics.commandRejected('backpressure');
    return new EngineError('BACKPRESSURE', `Partition ${partition} has more than ${maxPending} commands waiting; retry shortly.`);
  }

  /** The stream path: undefined when no reply came in time. */
  async function sendOverStream(partition: number, key: string, payload: EngineCommand, limit?: number): Promise<CommandReply | undefined> {
    // Register for the reply before the command exists: no reply can come first.
    const expected = await queues.replies.expectReply(key, replyTimeoutMs);
    let outcome: 'appended' | 'full' = 'appended';
    try {
      const entry = { key, payload, replyTo: expected.channel };
      if (limit === undefined) await queues.commands.append(partition, entry);
      else outcome = await queues.commands.appendIfBelow(partition, entry, limit);
    } catch (err) {
      expected.cancel();
      throw err;
    }
    if (outcome === 'full') {
      expected.cancel();
      throw backpressure(partition);
    }
    return (await expected.promise) as CommandReply | undefined;
  }

  if (tracer === undefined) return send;
  return (partition, command, commandKey, limit) => {
    // The caller's span (the HTTP request's), read before the command's own span becomes the active one.
    const traceparent = sampledTraceparent();
    if (traceparent !== undefined) command.trace = traceparent;
    return inSpan(tracer, `orca.command ${command.kind}`, { 'orca.partition': partition, 'orca.command.kind': command.kind }, () =>
      send(partition, command, commandKey, limit),
    );
  };
}

/**
 * The promise's value, or undefined once `ms` passed first (the work goes on;
 * its result is dropped). Every command waits through one, so it makes one
 * promise and one timer rather than an async frame, a timeout promise and a
 * race.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms, undefined);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Keys for the commands no client named (`fresh`): unique to this engine's
 * run by a random prefix, then a counter — no colon, so never a client's
 * account-scoped key. A randomUUID per command was a visible share of the
 * command path's allocation.
 */
export function freshKeys(): () => string {
  const prefix = randomUUID();
  let next = 0;
  return () => `${prefix}.${(next++).toString(36)}`;
}
